-- Sales statistics (docs/sales-stats.md): one statement reads a shop's orders and
-- ledger rows of a date range through these two indexes alone (index-only scans),
-- whatever the shop's history before or after the range.

-- A ledger row names its order's product, so the ledger side of the statistics
-- groups and filters (the product's `external` now) without visiting the order.
-- Whoever inserts a ledger row (a transition, a claim's debit, a script) may leave
-- it out: the trigger copies it from the order in the insert's own statement.
ALTER TABLE "ledger_entries" ADD COLUMN "product_id" uuid DEFAULT null;
--> statement-breakpoint
UPDATE ledger_entries l SET product_id = o.product_id FROM orders o WHERE o.id = l.order_id;
--> statement-breakpoint
ALTER TABLE "ledger_entries" ALTER COLUMN "product_id" SET NOT NULL;
--> statement-breakpoint
CREATE FUNCTION ledger_entries_product_from_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT product_id INTO NEW.product_id FROM orders WHERE id = NEW.order_id;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_product_on_insert BEFORE INSERT ON ledger_entries
  FOR EACH ROW WHEN (NEW.product_id IS NULL) EXECUTE FUNCTION ledger_entries_product_from_order();
--> statement-breakpoint
-- The shop's ledger by date, carrying what the statistics sum (it also serves the
-- shop's ledger listing, which the index it replaces served).
DROP INDEX "ledger_entries_shop_idx";
--> statement-breakpoint
CREATE INDEX "ledger_entries_shop_sales_idx" ON "ledger_entries" USING btree ("shop_id","created_at","product_id","kind","amount");
--> statement-breakpoint
-- The shop's visible orders by purchase time, carrying what the statistics sum.
CREATE INDEX "orders_sales_idx" ON "orders" USING btree ("shop_id","created_at","product_id","quantity","amount") WHERE "orders"."external";
