-- The webhook fan-out once per statement that inserts events, over its transition table, instead
-- of once per event row: a statement writing several events (a purchase delivered from stock, the
-- chat rules' messages) looks at the shop's endpoints once. The definitions are
-- db/webhooks/triggers.sql's.
CREATE OR REPLACE FUNCTION events_enqueue_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (endpoint_id, event_id, webhook_id, event_type, next_attempt_at)
  SELECT e.id, n.id, n.id, n.type, now()
  FROM new_events n JOIN webhook_endpoints e ON e.shop_id = n.shop_id
  WHERE e.enabled AND e.purpose = 'events' AND (cardinality(e.event_types) = 0 OR n.type = ANY(e.event_types))
  ORDER BY n.shop_id, n.seq, e.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER events_webhook_fan_out ON events;
--> statement-breakpoint
CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION events_enqueue_webhook_deliveries();
