-- The order-entry tables of `spindle orders load` built inside PostgreSQL, for
-- bench/orders-load.sh: the same columns (crates/db/src/orders/schema.rs) and the same value
-- rules (TPC-C v5.11 clause 4.3.3.1), the rows made by INSERT ... SELECT from
-- generate_series, then the same primary keys and secondary indexes, built after the rows.
-- Run as: psql -v ON_ERROR_STOP=1 -v w=WAREHOUSES -f bench/orders-inserver.sql
-- The text is random hex (md5) rather than letters and digits: the same lengths.

CREATE FUNCTION pg_temp.a_string(lo int, hi int) RETURNS text VOLATILE LANGUAGE sql AS
  $$ SELECT substr(repeat(md5(random()::text), (hi + 31) / 32), 1, lo + floor(random() * (hi - lo + 1))::int) $$;
CREATE FUNCTION pg_temp.data() RETURNS text VOLATILE LANGUAGE sql AS
  $$ SELECT CASE WHEN random() < 0.1 THEN overlay(s PLACING 'ORIGINAL' FROM 1 + floor(random() * (length(s) - 7))::int)
                 ELSE s END FROM (SELECT pg_temp.a_string(26, 50) AS s) x $$;
CREATE FUNCTION pg_temp.state() RETURNS text VOLATILE LANGUAGE sql AS
  $$ SELECT chr(65 + floor(random() * 26)::int) || chr(65 + floor(random() * 26)::int) $$;
CREATE FUNCTION pg_temp.zip() RETURNS text VOLATILE LANGUAGE sql AS
  $$ SELECT lpad(floor(random() * 10000)::int::text, 4, '0') || '11111' $$;
CREATE FUNCTION pg_temp.last_name(n int) RETURNS text IMMUTABLE LANGUAGE sql AS
  $$ SELECT s[n / 100 + 1] || s[n / 10 % 10 + 1] || s[n % 10 + 1]
     FROM (SELECT ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'] AS s) x $$;
-- NURand(255, 0, 999) with a C of its own.
CREATE FUNCTION pg_temp.nurand_last() RETURNS int VOLATILE LANGUAGE sql AS
  $$ SELECT ((floor(random() * 256)::int | floor(random() * 1000)::int) + 157) % 1000 $$;

CREATE TABLE warehouse (w_id integer, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20),
  w_city varchar(20), w_state char(2), w_zip char(9), w_tax numeric(4,4), w_ytd numeric(12,2));
CREATE TABLE district (d_id smallint, d_w_id integer, d_name varchar(10), d_street_1 varchar(20),
  d_street_2 varchar(20), d_city varchar(20), d_state char(2), d_zip char(9), d_tax numeric(4,4),
  d_ytd numeric(12,2), d_next_o_id integer);
CREATE TABLE customer (c_id integer, c_d_id smallint, c_w_id integer, c_first varchar(16), c_middle char(2),
  c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20), c_city varchar(20), c_state char(2),
  c_zip char(9), c_phone char(16), c_since timestamp, c_credit char(2), c_credit_lim numeric(12,2),
  c_discount numeric(4,4), c_balance numeric(12,2), c_ytd_payment numeric(12,2), c_payment_cnt smallint,
  c_delivery_cnt smallint, c_data varchar(500));
CREATE TABLE history (h_c_id integer, h_c_d_id smallint, h_c_w_id integer, h_d_id smallint, h_w_id integer,
  h_date timestamp, h_amount numeric(6,2), h_data varchar(24));
CREATE TABLE new_order (no_o_id integer, no_d_id smallint, no_w_id integer);
CREATE TABLE orders (o_id integer, o_d_id smallint, o_w_id integer, o_c_id integer, o_entry_d timestamp,
  o_carrier_id smallint, o_ol_cnt smallint, o_all_local smallint);
CREATE TABLE order_line (ol_o_id integer, ol_d_id smallint, ol_w_id integer, ol_number smallint, ol_i_id integer,
  ol_supply_w_id integer, ol_delivery_d timestamp, ol_quantity smallint, ol_amount numeric(6,2),
  ol_dist_info char(24));
CREATE TABLE item (i_id integer, i_im_id integer, i_name varchar(24), i_price numeric(5,2), i_data varchar(50));
CREATE TABLE stock (s_i_id integer, s_w_id integer, s_quantity smallint, s_dist_01 char(24), s_dist_02 char(24),
  s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24), s_dist_06 char(24), s_dist_07 char(24),
  s_dist_08 char(24), s_dist_09 char(24), s_dist_10 char(24), s_ytd numeric(8,0), s_order_cnt smallint,
  s_remote_cnt smallint, s_data varchar(50));

INSERT INTO item
SELECT i, 1 + floor(random() * 10000), pg_temp.a_string(14, 24), (100 + floor(random() * 9901)) / 100, pg_temp.data()
FROM generate_series(1, 100000) i;

INSERT INTO warehouse
SELECT w, pg_temp.a_string(6, 10), pg_temp.a_string(10, 20), pg_temp.a_string(10, 20), pg_temp.a_string(10, 20),
  pg_temp.state(), pg_temp.zip(), floor(random() * 2001) / 10000, 300000
FROM generate_series(1, :w) w;

INSERT INTO district
SELECT d, w, pg_temp.a_string(6, 10), pg_temp.a_string(10, 20), pg_temp.a_string(10, 20), pg_temp.a_string(10, 20),
  pg_temp.state(), pg_temp.zip(), floor(random() * 2001) / 10000, 30000, 3001
FROM generate_series(1, :w) w, generate_series(1, 10) d;

INSERT INTO customer
SELECT c, d, w, pg_temp.a_string(8, 16), 'OE',
  pg_temp.last_name(CASE WHEN c <= 1000 THEN c - 1 ELSE pg_temp.nurand_last() END),
  pg_temp.a_string(10, 20), pg_temp.a_string(10, 20), pg_temp.a_string(10, 20), pg_temp.state(), pg_temp.zip(),
  lpad(floor(random() * 1e16)::bigint::text, 16, '0'), now(), CASE WHEN random() < 0.1 THEN 'BC' ELSE 'GC' END,
  50000, floor(random() * 5001) / 10000, -10, 10, 1, 0, pg_temp.a_string(300, 500)
FROM generate_series(1, :w) w, generate_series(1, 10) d, generate_series(1, 3000) c;

INSERT INTO history
SELECT c, d, w, d, w, now(), 10, pg_temp.a_string(12, 24)
FROM generate_series(1, :w) w, generate_series(1, 10) d, generate_series(1, 3000) c;

-- O_C_ID: each district's customers in a random order.
INSERT INTO orders
SELECT o, d, w, row_number() OVER (PARTITION BY w, d ORDER BY random()), now(),
  CASE WHEN o < 2101 THEN 1 + floor(random() * 10) END, 5 + floor(random() * 11), 1
FROM generate_series(1, :w) w, generate_series(1, 10) d, generate_series(1, 3000) o;

INSERT INTO new_order
SELECT o, d, w FROM generate_series(1, :w) w, generate_series(1, 10) d, generate_series(2101, 3000) o;

INSERT INTO order_line
SELECT o_id, o_d_id, o_w_id, n, 1 + floor(random() * 100000), o_w_id,
  CASE WHEN o_id < 2101 THEN o_entry_d END, 5,
  CASE WHEN o_id < 2101 THEN 0 ELSE (1 + floor(random() * 999999)) / 100 END, pg_temp.a_string(24, 24)
FROM orders, generate_series(1, o_ol_cnt) n;

INSERT INTO stock
SELECT i, w, 10 + floor(random() * 91),
  pg_temp.a_string(24, 24), pg_temp.a_string(24, 24), pg_temp.a_string(24, 24), pg_temp.a_string(24, 24),
  pg_temp.a_string(24, 24), pg_temp.a_string(24, 24), pg_temp.a_string(24, 24), pg_temp.a_string(24, 24),
  pg_temp.a_string(24, 24), pg_temp.a_string(24, 24), 0, 0, 0, pg_temp.data()
FROM generate_series(1, :w) w, generate_series(1, 100000) i;

SET maintenance_work_mem = '512MB';
ALTER TABLE warehouse ADD PRIMARY KEY (w_id);
ALTER TABLE district ADD PRIMARY KEY (d_w_id, d_id);
ALTER TABLE customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id);
ALTER TABLE new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id);
ALTER TABLE orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id);
ALTER TABLE order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);
ALTER TABLE item ADD PRIMARY KEY (i_id);
ALTER TABLE stock ADD PRIMARY KEY (s_w_id, s_i_id);
CREATE INDEX customer_i2 ON customer (c_w_id, c_d_id, c_last, c_first, c_id);
CREATE INDEX orders_i2 ON orders (o_w_id, o_d_id, o_c_id, o_id);
