-- The webhooks' trigger as it stands after every migration (written by
-- db/migrations/0007_write_statements.sql, the function redefined by
-- 0009_delivery_endpoint.sql, both made per statement by 0017_events_fan_out_per_statement.sql). A migration that changes it changes this file too:
-- test/core/triggers.test.ts holds the migrated database to it.
-- Why it is a trigger and not code: docs/architecture.md, "Triggers".

-- Every event fans out to one pending delivery per enabled webhook endpoint (the
-- delivery endpoint gets delivery requests, never events: docs/delivery-endpoint.md)
-- of its shop whose kinds include it, in the event's own transaction. As an AFTER
-- trigger, once per statement over the rows it inserted (a purchase's paid and
-- delivered events, a rule firing's messages: one look at the endpoints for all of
-- them), it runs at the end of the statement that inserted the events, once that
-- statement holds the shop row's lock, and its INSERT reads the endpoints with a
-- snapshot of its own: an endpoint change committed before the event got its seq is
-- seen, even when the event is written by a single statement that had to wait for
-- the shop row (db/events/statements.ts).
CREATE OR REPLACE FUNCTION events_enqueue_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (endpoint_id, event_id, webhook_id, event_type, next_attempt_at)
  SELECT e.id, n.id, n.id, n.type, now()
  FROM new_events n JOIN webhook_endpoints e ON e.shop_id = n.shop_id
  WHERE e.enabled AND e.purpose = 'events' AND (cardinality(e.event_types) = 0 OR n.type = ANY(e.event_types))
  ORDER BY n.shop_id, n.seq, e.id;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER events_webhook_fan_out AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION events_enqueue_webhook_deliveries();
