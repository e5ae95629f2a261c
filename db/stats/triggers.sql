-- The sales statistics' triggers and functions as they stand after every migration
-- (written by db/migrations/0012_sales_stats.sql and 0014_sales_rollup.sql). A
-- migration that changes one changes this file too: test/core/triggers.test.ts
-- holds the migrated database to it. Why these are triggers and not code:
-- docs/architecture.md, "Triggers"; the rollup's tables and buckets: docs/sales-stats.md.

-- A ledger row names its order's product, so the ledger side of the statistics
-- groups and filters without visiting the order. Whoever inserts a ledger row (a
-- transition, a claim's debit, a script) may leave it out: the trigger copies it
-- from the order in the insert's own statement.
CREATE OR REPLACE FUNCTION ledger_entries_product_from_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT product_id INTO NEW.product_id FROM orders WHERE id = NEW.order_id;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER ledger_entries_product_on_insert BEFORE INSERT ON ledger_entries
  FOR EACH ROW WHEN (NEW.product_id IS NULL) EXECUTE FUNCTION ledger_entries_product_from_order();

-- Adds one order's or ledger row's figures at instant `at`. The rows are always
-- taken in the same order (product's quarter, product's day, shop's quarter).
CREATE OR REPLACE FUNCTION sales_rollup_add(
  shop uuid, product uuid, at timestamptz, external boolean,
  n bigint, entries_ bigint, qty bigint, gross_ numeric, refunded_ numeric, credited_ numeric
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  quarter timestamptz := date_bin('15 minutes', at, timestamptz '2000-01-01 00:00:00+00');
BEGIN
  INSERT INTO sales_rollup AS r VALUES (shop, product, quarter, n, entries_, qty, gross_, refunded_, credited_)
  ON CONFLICT (shop_id, product_id, bucket) DO UPDATE SET orders = r.orders + excluded.orders,
    entries = r.entries + excluded.entries,
    quantity = r.quantity + excluded.quantity, gross = r.gross + excluded.gross,
    refunded = r.refunded + excluded.refunded, credited = r.credited + excluded.credited;
  INSERT INTO sales_rollup_days AS r
  VALUES (shop, (at AT TIME ZONE 'UTC')::date, product, n, entries_, qty, gross_, refunded_, credited_)
  ON CONFLICT (shop_id, day, product_id) DO UPDATE SET orders = r.orders + excluded.orders,
    entries = r.entries + excluded.entries,
    quantity = r.quantity + excluded.quantity, gross = r.gross + excluded.gross,
    refunded = r.refunded + excluded.refunded, credited = r.credited + excluded.credited;
  IF external THEN
    INSERT INTO sales_rollup_shop AS r VALUES (shop, quarter, n, entries_, qty, gross_, refunded_, credited_)
    ON CONFLICT (shop_id, bucket) DO UPDATE SET orders = r.orders + excluded.orders,
    entries = r.entries + excluded.entries,
      quantity = r.quantity + excluded.quantity, gross = r.gross + excluded.gross,
      refunded = r.refunded + excluded.refunded, credited = r.credited + excluded.credited;
  END IF;
END $$;

-- An order counts at its purchase time; `external` is the product's, copied by
-- orders_external_on_insert (it fires first: BEFORE triggers precede AFTER ones).
-- The service only inserts orders; an update of the summed columns or a delete (a
-- script, a test backdating a purchase) takes the old row's figures back too.
CREATE OR REPLACE FUNCTION sales_rollup_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM sales_rollup_add(OLD.shop_id, OLD.product_id, OLD.created_at, OLD.external,
      -1, 0, -OLD.quantity, -OLD.amount, 0, 0);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM sales_rollup_add(NEW.shop_id, NEW.product_id, NEW.created_at, NEW.external,
      1, 0, NEW.quantity, NEW.amount, 0, 0);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER orders_sales_rollup AFTER INSERT ON orders
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_order();

CREATE OR REPLACE TRIGGER orders_sales_rollup_update
  AFTER UPDATE OF shop_id, product_id, created_at, quantity, amount ON orders
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_order();

CREATE OR REPLACE TRIGGER orders_sales_rollup_delete AFTER DELETE ON orders
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_order();

-- A ledger row counts at its own date, for its order's product (ledger_entries_product_on_insert
-- set it). `external` is read from the order, not the product: a transition has locked
-- the order row already, and a product's change of `external` waits for that lock
-- (products_external_sync updates the orders) before it moves the product's history.
CREATE OR REPLACE FUNCTION sales_rollup_ledger_add(l ledger_entries, sign integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sales_rollup_add(l.shop_id, l.product_id, l.created_at,
    (SELECT external FROM orders WHERE id = l.order_id), 0, sign, 0, 0,
    sign * CASE WHEN l.kind = 'refund' THEN l.amount ELSE 0 END,
    sign * CASE l.kind WHEN 'credit' THEN l.amount WHEN 'debit' THEN -l.amount ELSE 0 END);
END $$;

CREATE OR REPLACE FUNCTION sales_rollup_ledger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM sales_rollup_ledger_add(OLD, -1); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM sales_rollup_ledger_add(NEW, 1); END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER ledger_entries_sales_rollup AFTER INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_ledger();

CREATE OR REPLACE TRIGGER ledger_entries_sales_rollup_update
  AFTER UPDATE OF shop_id, order_id, product_id, kind, amount, created_at ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_ledger();

CREATE OR REPLACE TRIGGER ledger_entries_sales_rollup_delete AFTER DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_ledger();

-- A product that becomes external brings its whole history into its shop's sums,
-- one that stops being external takes it back out. The trigger's name sorts after
-- products_external_sync, so it runs once the orders are updated (and the
-- transitions holding them have committed).
CREATE OR REPLACE FUNCTION sales_rollup_product_external() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sign integer := CASE WHEN NEW.external THEN 1 ELSE -1 END;
BEGIN
  INSERT INTO sales_rollup_shop AS r
  SELECT shop_id, bucket, sign * orders, sign * entries, sign * quantity, sign * gross, sign * refunded,
    sign * credited
  FROM sales_rollup WHERE shop_id = NEW.shop_id AND product_id = NEW.id
  ON CONFLICT (shop_id, bucket) DO UPDATE SET orders = r.orders + excluded.orders,
    entries = r.entries + excluded.entries,
    quantity = r.quantity + excluded.quantity, gross = r.gross + excluded.gross,
    refunded = r.refunded + excluded.refunded, credited = r.credited + excluded.credited;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER products_external_sync_sales_rollup AFTER UPDATE OF external ON products
  FOR EACH ROW WHEN (OLD.external IS DISTINCT FROM NEW.external) EXECUTE FUNCTION sales_rollup_product_external();

-- The three tables computed afresh from the orders and the ledger: 0014's backfill,
-- and the benchmarks' after they seed with triggers off (scripts/bench/seed.ts).
CREATE OR REPLACE FUNCTION sales_rollup_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM sales_rollup_shop;
  DELETE FROM sales_rollup_days;
  DELETE FROM sales_rollup;
  INSERT INTO sales_rollup (shop_id, product_id, bucket, orders, entries, quantity, gross, refunded, credited)
  SELECT shop_id, product_id, date_bin('15 minutes', at, timestamptz '2000-01-01 00:00:00+00'),
    sum(n), sum(entries), sum(qty), sum(gross), sum(refunded), sum(credited)
  FROM (
    SELECT shop_id, product_id, created_at AS at, 1 AS n, 0 AS entries, quantity AS qty, amount AS gross,
      0::numeric AS refunded, 0::numeric AS credited
    FROM orders
    UNION ALL
    SELECT shop_id, product_id, created_at, 0, 1, 0, 0,
      CASE WHEN kind = 'refund' THEN amount ELSE 0 END,
      CASE kind WHEN 'credit' THEN amount WHEN 'debit' THEN -amount ELSE 0 END
    FROM ledger_entries
  ) moves
  GROUP BY 1, 2, 3;
  INSERT INTO sales_rollup_days (shop_id, day, product_id, orders, entries, quantity, gross, refunded, credited)
  SELECT shop_id, (bucket AT TIME ZONE 'UTC')::date, product_id,
    sum(orders), sum(entries), sum(quantity), sum(gross), sum(refunded), sum(credited)
  FROM sales_rollup GROUP BY 1, 2, 3;
  INSERT INTO sales_rollup_shop (shop_id, bucket, orders, entries, quantity, gross, refunded, credited)
  SELECT r.shop_id, r.bucket, sum(r.orders), sum(r.entries), sum(r.quantity), sum(r.gross), sum(r.refunded),
    sum(r.credited)
  FROM sales_rollup r JOIN products p ON p.id = r.product_id AND p.external GROUP BY 1, 2;
END $$;
