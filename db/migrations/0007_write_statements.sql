ALTER TABLE "orders" ADD COLUMN "last_message_at" timestamp (3) with time zone;--> statement-breakpoint
-- Existing chats: the newest message of each order.
UPDATE orders o SET last_message_at = m.last FROM (
  SELECT order_id, max(created_at) AS last FROM order_messages GROUP BY order_id
) m WHERE m.order_id = o.id;
--> statement-breakpoint
-- Every event fans out to one pending delivery per enabled endpoint of its shop
-- whose kinds include it, in the event's own transaction. As an AFTER trigger it
-- runs at the end of the statement that inserted the event, once that statement
-- holds the shop row's lock, and its INSERT reads the endpoints with a snapshot
-- of its own: an endpoint change committed before the event got its seq is seen,
-- even when the event is written by a single statement that had to wait for the
-- shop row (db/event-statements.ts).
CREATE FUNCTION events_enqueue_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (endpoint_id, event_id, webhook_id, event_type, next_attempt_at)
  SELECT e.id, NEW.id, NEW.id, NEW.type, now()
  FROM webhook_endpoints e
  WHERE e.shop_id = NEW.shop_id AND e.enabled
    AND (cardinality(e.event_types) = 0 OR NEW.type = ANY(e.event_types));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION events_enqueue_webhook_deliveries();
