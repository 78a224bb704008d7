//! The stamp in every 512-byte sector a verified write puts down: which run wrote it, for
//! which offset, in which write (its generation, start and length), and a checksum of the
//! whole sector. A sector read back says by itself whether it is intact, where it belongs and
//! which write it came from; sector-sized stamps tell a torn write (some sectors new, some
//! old) from a corrupt one, whatever the device's atomic write size.
//!
//! The checksum is the header's hash seeded with the body's: stamping changes only the header,
//! so a writer that knows its buffer's body hashes (from checking what was last read into it)
//! stamps a 4 KiB write by hashing 8 x 48 bytes instead of all 4 KiB.

/// Bytes each stamp covers: the smallest sector any device has.
pub const SECTOR: usize = 512;

// Version 2: the checksum seeds the header's hash with the body's (version 1 hashed both at once).
const MAGIC: u64 = u64::from_le_bytes(*b"SPNDLVF2");
// Field offsets: checksum, magic, run, offset, generation, write start, write length; the
// rest of the sector is the buffer's random bytes, which defeat compression and dedup.
const CHECKSUM: usize = 0;
const MAGIC_AT: usize = 8;
const RUN: usize = 16;
const OFFSET: usize = 24;
const GENERATION: usize = 32;
const WRITE_START: usize = 40;
const WRITE_LEN: usize = 48;
/// Where the header ends and the body (the buffer's own bytes) begins.
const BODY: usize = 56;

/// What one sector of a verified write says about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The run's verification id.
    pub run: u64,
    /// Where the sector was meant to be written.
    pub offset: u64,
    /// The write's generation: writes to one target are numbered in the order they were issued.
    pub generation: u64,
    /// The whole write the sector was part of.
    pub write_start: u64,
    pub write_len: u32,
}

/// What a sector read back holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sector {
    /// An intact stamp.
    Stamped(Stamp),
    /// A stamp (its magic or its run's id is there) whose checksum fails; `run` is what its
    /// run field holds.
    Damaged { run: u64 },
    /// No stamp: never written under verification, or zeros, or foreign bytes.
    Unstamped,
}

fn get(sector: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(sector[at..at + 8].try_into().expect("8 bytes"))
}

fn put(sector: &mut [u8], at: usize, value: u64) {
    sector[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// The hash of a sector's body: everything after the header, which stamping leaves alone.
pub fn body_hash(sector: &[u8]) -> u64 {
    twox_hash::XxHash3_64::oneshot(&sector[BODY..SECTOR])
}

fn checksum(sector: &[u8], body: u64) -> u64 {
    twox_hash::XxHash3_64::oneshot_with_seed(body, &sector[MAGIC_AT..BODY])
}

/// Stamps every sector of `block` (a whole write meant for `stamp.write_start`); each sector
/// gets its own offset.
pub fn stamp_block(block: &mut [u8], stamp: Stamp) {
    for (i, sector) in block.chunks_exact_mut(SECTOR).enumerate() {
        let body = body_hash(sector);
        stamp_sector(sector, i, stamp, body);
    }
}

/// [`stamp_block`] for a writer that knows the body hash of each of `block`'s sectors.
pub fn stamp_block_with_bodies(block: &mut [u8], stamp: Stamp, bodies: &[u64]) {
    debug_assert_eq!(bodies.len(), block.len() / SECTOR);
    for (i, (sector, &body)) in block.chunks_exact_mut(SECTOR).zip(bodies).enumerate() {
        stamp_sector(sector, i, stamp, body);
    }
}

/// Stamps the `i`th sector of a write whose body hashes to `body`.
#[inline(always)]
fn stamp_sector(sector: &mut [u8], i: usize, stamp: Stamp, body: u64) {
    put(sector, MAGIC_AT, MAGIC);
    put(sector, RUN, stamp.run);
    put(sector, OFFSET, stamp.write_start + (i * SECTOR) as u64);
    put(sector, GENERATION, stamp.generation);
    put(sector, WRITE_START, stamp.write_start);
    put(sector, WRITE_LEN, u64::from(stamp.write_len));
    let sum = checksum(sector, body);
    put(sector, CHECKSUM, sum);
}

/// Reads one sector's stamp; `run` is the id the caller expects, so a damaged stamp of that
/// run is told from bytes that were never a stamp even when the damage hit the magic.
pub fn read(sector: &[u8], run: u64) -> Sector {
    read_with_body(sector, run, body_hash(sector))
}

/// [`read`] for a caller that has hashed the sector's body (`body_hash`) itself.
pub fn read_with_body(sector: &[u8], run: u64, body: u64) -> Sector {
    let magic = get(sector, MAGIC_AT) == MAGIC;
    if get(sector, CHECKSUM) != checksum(sector, body) {
        let found = get(sector, RUN);
        return if magic || found == run { Sector::Damaged { run: found } } else { Sector::Unstamped };
    }
    if !magic {
        return Sector::Unstamped;
    }
    Sector::Stamped(Stamp {
        run: get(sector, RUN),
        offset: get(sector, OFFSET),
        generation: get(sector, GENERATION),
        write_start: get(sector, WRITE_START),
        write_len: get(sector, WRITE_LEN) as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamped(len: usize, write_start: u64) -> Vec<u8> {
        let mut block: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
        stamp_block(&mut block, Stamp { run: 9, offset: 0, generation: 5, write_start, write_len: len as u32 });
        block
    }

    #[test]
    fn each_sector_says_where_and_which_write_it_belongs_to() {
        let block = stamped(4096, 65536);
        for (i, sector) in block.chunks(SECTOR).enumerate() {
            let Sector::Stamped(s) = read(sector, 9) else { panic!("sector {i} not stamped") };
            assert_eq!((s.run, s.offset, s.generation), (9, 65536 + (i * SECTOR) as u64, 5));
            assert_eq!((s.write_start, s.write_len), (65536, 4096));
        }
    }

    #[test]
    fn any_changed_bit_is_damage_and_foreign_bytes_are_unstamped() {
        let block = stamped(SECTOR, 0);
        for bit in 0..SECTOR * 8 {
            let mut flipped = block.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(matches!(read(&flipped, 9), Sector::Damaged { .. }), "bit {bit}");
        }
        assert_eq!(read(&[0u8; SECTOR], 9), Sector::Unstamped);
        let random: Vec<u8> = (0..SECTOR).map(|i| (i * 31 % 251) as u8).collect();
        assert_eq!(read(&random, 9), Sector::Unstamped);
    }
}
