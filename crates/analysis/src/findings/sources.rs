//! The published documents the rules hold figures against, by title, publisher and address.
//! docs/guidance.md says which threshold each one gives and which rule uses it.

use super::Source;

/// The 10-15 ms bound on any I/O wait and the latency assessment (2-5 ms very good, 6-15 good,
/// 16-100 poor, 100-500 bad); also: check throughput against what the maker specifies.
pub const MS_SLOW_IO: Source = Source {
    title: "Troubleshoot slow SQL Server performance caused by I/O issues",
    publisher: "Microsoft Learn",
    url: "https://learn.microsoft.com/en-us/troubleshoot/sql/database-engine/performance/troubleshoot-sql-io-performance",
};

/// Any write cache must be battery-backed; other caching is prone to data loss.
pub const MS_LOGGING_RELIABILITY: Source = Source {
    title: "Description of logging and data storage algorithms that extend data reliability in SQL Server",
    publisher: "Microsoft Learn",
    url: "https://learn.microsoft.com/en-us/troubleshoot/sql/database-engine/database-file-operations/logging-data-storage-algorithms",
};

/// Write-back caches without a battery lose data on power failure; how to turn them off.
pub const PG_RELIABILITY: Source = Source {
    title: "Reliability and the Write-Ahead Log: Reliability",
    publisher: "PostgreSQL Global Development Group",
    url: "https://www.postgresql.org/docs/current/wal-reliability.html",
};

/// Many single-row transactions each pay a commit: turn off autocommit, commit once.
pub const PG_POPULATE: Source = Source {
    title: "Populating a Database",
    publisher: "PostgreSQL Global Development Group",
    url: "https://www.postgresql.org/docs/current/populate.html",
};

/// 1 flushes the redo log at each commit, as full ACID needs.
pub const MARIADB_FLUSH_LOG: Source = Source {
    title: "innodb_flush_log_at_trx_commit",
    publisher: "MariaDB",
    url: "https://mariadb.com/docs/server/ref/mdb/system-variables/innodb_flush_log_at_trx_commit",
};

/// O_DIRECT (the default since 10.6) bypasses the file system cache.
pub const MARIADB_FLUSH_METHOD: Source = Source {
    title: "InnoDB Flush Method",
    publisher: "MariaDB",
    url: "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-flush-method",
};

/// tmpfs keeps every file in virtual memory; nothing is written to a disk.
pub const KERNEL_TMPFS: Source = Source {
    title: "Tmpfs",
    publisher: "The Linux kernel documentation",
    url: "https://docs.kernel.org/filesystems/tmpfs.html",
};

/// barrier/nobarrier: barriers make volatile write caches safe; data=writeback keeps no order.
pub const KERNEL_EXT4: Source = Source {
    title: "ext4 General Information",
    publisher: "The Linux kernel documentation",
    url: "https://docs.kernel.org/admin-guide/ext4.html",
};

/// `--direct-io`: the loop device reads and writes its backing file without the page cache.
pub const LOSETUP: Source = Source {
    title: "losetup(8)",
    publisher: "util-linux, Linux man-pages",
    url: "https://man7.org/linux/man-pages/man8/losetup.8.html",
};

/// Write-intensive applications such as database storage pay a copy-on-write overhead.
pub const DOCKER_STORAGE_DRIVERS: Source = Source {
    title: "Storage drivers",
    publisher: "Docker Docs",
    url: "https://docs.docker.com/engine/storage/drivers/",
};

/// Partitions start on a 1 MiB grain, which keeps them on physical sector boundaries.
pub const LIBFDISK_ALIGNMENT: Source = Source {
    title: "libfdisk: Alignment",
    publisher: "util-linux",
    url: "https://www.kernel.org/pub/linux/utils/util-linux/v2.33/libfdisk-docs/libfdisk-Alignment.html",
};

/// Filesystem utilization: warning at 80%, critical at 90%.
pub const ZABBIX_LINUX: Source =
    Source { title: "Linux by Zabbix agent", publisher: "Zabbix", url: "https://www.zabbix.com/integrations/linux" };

/// "Database Hammer": queue length per disk above 2 is a bottleneck; a SAN's cache and other
/// tenants decide what the database gets.
pub const HAMMER: Source = Source {
    title: "Put the Hammer Down",
    publisher: "SQL Server Magazine (ITPro Today)",
    url: "https://www.itprotoday.com/sql-server/put-hammer-down",
};

/// The transaction size where the log's throughput levels off.
pub const LOG_PERFORMANCE: Source = Source {
    title: "Server Commissioning Part #1 - Transaction Log Performance",
    publisher: "Tony Rogerson, SQLBlogCasts",
    url: "https://sqlblogcasts.com/blogs/tonyrogerson/archive/2006/10/21/1226.aspx",
};

/// A cloud's volumes are provisioned with a number of I/Os a second (and MiB/s) they deliver.
pub const AWS_EBS_VOLUME_TYPES: Source = Source {
    title: "Amazon EBS volume types",
    publisher: "Amazon Web Services",
    url: "https://docs.aws.amazon.com/ebs/latest/userguide/ebs-volume-types.html",
};

/// How much of their provisioned figures a cloud's volumes are designed to deliver.
pub const AWS_EBS_OPTIMIZATION: Source = Source {
    title: "Amazon EBS optimization",
    publisher: "Amazon Web Services",
    url: "https://docs.aws.amazon.com/ebs/latest/userguide/ebs-optimization.html",
};
