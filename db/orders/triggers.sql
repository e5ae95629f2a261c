-- The orders' triggers as they stand after every migration (first written by
-- db/migrations/0004_order_visibility_triggers.sql). A migration that changes one
-- changes this file too: test/core/triggers.test.ts holds the migrated database to it.
-- Why these are triggers and not code: docs/architecture.md, "Triggers".
--
-- orders.external and order_counts are kept by the database, in the transaction
-- of the change, whoever writes (service, CLI, an old instance during a rolling
-- start), so the seller's queue and its total never disagree with the products.

-- A new order takes its product's external. FOR SHARE waits for a product update
-- in flight (and makes one wait for this insert), so neither side misses the other.
CREATE OR REPLACE FUNCTION orders_external_from_product() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT external INTO NEW.external FROM products WHERE id = NEW.product_id FOR SHARE;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER orders_external_on_insert BEFORE INSERT ON orders
  FOR EACH ROW EXECUTE FUNCTION orders_external_from_product();

-- A product's change of external is copied to all its orders at once.
CREATE OR REPLACE FUNCTION products_external_to_orders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE orders SET external = NEW.external WHERE product_id = NEW.id AND external <> NEW.external;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER products_external_sync AFTER UPDATE OF external ON products
  FOR EACH ROW WHEN (OLD.external IS DISTINCT FROM NEW.external) EXECUTE FUNCTION products_external_to_orders();

-- Counts per shop, status and product. The old status's row is locked before the
-- new one's; statuses only move forward (paid → processing → … → completed or
-- cancelled), so two transitions never wait for each other's rows in a cycle.
CREATE OR REPLACE FUNCTION order_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE order_counts SET count = count - 1
    WHERE shop_id = OLD.shop_id AND status = OLD.status AND product_id = OLD.product_id;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    UPDATE order_counts SET count = count + 1
    WHERE shop_id = NEW.shop_id AND status = NEW.status AND product_id = NEW.product_id;
    IF NOT FOUND THEN
      INSERT INTO order_counts (shop_id, status, product_id, count) VALUES (NEW.shop_id, NEW.status, NEW.product_id, 1)
      ON CONFLICT (shop_id, status, product_id) DO UPDATE SET count = order_counts.count + 1;
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER orders_count_insert AFTER INSERT ON orders
  FOR EACH ROW EXECUTE FUNCTION order_counts_apply();

CREATE OR REPLACE TRIGGER orders_count_status AFTER UPDATE OF status ON orders
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION order_counts_apply();

CREATE OR REPLACE TRIGGER orders_count_delete AFTER DELETE ON orders
  FOR EACH ROW EXECUTE FUNCTION order_counts_apply();
