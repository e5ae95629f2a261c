-- The sales statistics' rollup (docs/sales-stats.md, "How it is answered"): the
-- figures of every shop summed per product and UTC quarter hour, kept by the
-- database in the transaction of each order and ledger row, so a request reads a
-- few thousand sums instead of every order and ledger row of its range.
--
-- Quarter hours: every IANA zone's local midnight (+05:30, +05:45, +12:45 included)
-- falls on a UTC quarter-hour edge, so any local day, week or month is a whole
-- number of buckets. Three tables, each the shape one kind of request reads:
--   sales_rollup         per product and quarter hour (a product's periods; a range's edges);
--   sales_rollup_days    per product and UTC day (the inside of a range, by product);
--   sales_rollup_shop    per shop and quarter hour, the shop's external products only
--                        (periods of the whole shop); a product's change of `external`
--                        adds or takes back its whole history in the same transaction.
-- The service only inserts orders and ledger rows in what is summed here (amount,
-- quantity, created_at, product, shop: no statement of db/ updates or deletes them);
-- an update of those columns or a delete (a script, a test backdating a purchase) is
-- followed too, taking the old row's figures back and adding the new one's.
-- `entries` counts the ledger rows, so a product with nothing left in a range
-- (`orders` and `entries` 0) is not listed.
CREATE TABLE "sales_rollup" (
	"shop_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"orders" bigint NOT NULL,
	"entries" bigint NOT NULL,
	"quantity" bigint NOT NULL,
	"gross" numeric NOT NULL,
	"refunded" numeric NOT NULL,
	"credited" numeric NOT NULL,
	CONSTRAINT "sales_rollup_pk" PRIMARY KEY ("shop_id", "product_id", "bucket")
);
--> statement-breakpoint
CREATE TABLE "sales_rollup_days" (
	"shop_id" uuid NOT NULL,
	"day" date NOT NULL,
	"product_id" uuid NOT NULL,
	"orders" bigint NOT NULL,
	"entries" bigint NOT NULL,
	"quantity" bigint NOT NULL,
	"gross" numeric NOT NULL,
	"refunded" numeric NOT NULL,
	"credited" numeric NOT NULL,
	CONSTRAINT "sales_rollup_days_pk" PRIMARY KEY ("shop_id", "day", "product_id")
);
--> statement-breakpoint
CREATE TABLE "sales_rollup_shop" (
	"shop_id" uuid NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"orders" bigint NOT NULL,
	"entries" bigint NOT NULL,
	"quantity" bigint NOT NULL,
	"gross" numeric NOT NULL,
	"refunded" numeric NOT NULL,
	"credited" numeric NOT NULL,
	CONSTRAINT "sales_rollup_shop_pk" PRIMARY KEY ("shop_id", "bucket")
);
--> statement-breakpoint
-- Adds one order's or ledger row's figures at instant `at`. The rows are always
-- taken in the same order (product's quarter, product's day, shop's quarter).
CREATE FUNCTION sales_rollup_add(
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
--> statement-breakpoint
-- An order counts at its purchase time; `external` is the product's, copied by
-- orders_external_on_insert (it fires first: BEFORE triggers precede AFTER ones).
CREATE FUNCTION sales_rollup_order() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint
CREATE TRIGGER orders_sales_rollup AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION sales_rollup_order();
--> statement-breakpoint
CREATE TRIGGER orders_sales_rollup_update AFTER UPDATE OF shop_id, product_id, created_at, quantity, amount ON orders
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_order();
--> statement-breakpoint
CREATE TRIGGER orders_sales_rollup_delete AFTER DELETE ON orders FOR EACH ROW EXECUTE FUNCTION sales_rollup_order();
--> statement-breakpoint
-- A ledger row counts at its own date, for its order's product (ledger_entries_product_on_insert
-- set it). `external` is read from the order, not the product: a transition has locked
-- the order row already, and a product's change of `external` waits for that lock
-- (products_external_sync updates the orders) before it moves the product's history.
CREATE FUNCTION sales_rollup_ledger_add(l ledger_entries, sign integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sales_rollup_add(l.shop_id, l.product_id, l.created_at,
    (SELECT external FROM orders WHERE id = l.order_id), 0, sign, 0, 0,
    sign * CASE WHEN l.kind = 'refund' THEN l.amount ELSE 0 END,
    sign * CASE l.kind WHEN 'credit' THEN l.amount WHEN 'debit' THEN -l.amount ELSE 0 END);
END $$;
--> statement-breakpoint
CREATE FUNCTION sales_rollup_ledger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM sales_rollup_ledger_add(OLD, -1); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM sales_rollup_ledger_add(NEW, 1); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_sales_rollup AFTER INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_ledger();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_sales_rollup_update
  AFTER UPDATE OF shop_id, order_id, product_id, kind, amount, created_at ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_ledger();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_sales_rollup_delete AFTER DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION sales_rollup_ledger();
--> statement-breakpoint
-- A product that becomes external brings its whole history into its shop's sums,
-- one that stops being external takes it back out. The trigger's name sorts after
-- products_external_sync, so it runs once the orders are updated (and the
-- transitions holding them have committed).
CREATE FUNCTION sales_rollup_product_external() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint
CREATE TRIGGER products_external_sync_sales_rollup AFTER UPDATE OF external ON products
  FOR EACH ROW WHEN (OLD.external IS DISTINCT FROM NEW.external) EXECUTE FUNCTION sales_rollup_product_external();
--> statement-breakpoint
-- The three tables computed afresh from the orders and the ledger: this migration's
-- backfill, and the benchmarks' after they seed with triggers off (scripts/bench/seed.ts).
CREATE FUNCTION sales_rollup_rebuild() RETURNS void LANGUAGE plpgsql AS $$
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
--> statement-breakpoint
SELECT sales_rollup_rebuild();
--> statement-breakpoint
-- The statistics read the rollup now: the indexes 0012 added for them go.
DROP INDEX "orders_sales_idx";
