-- The chat rules bench's floor (scripts/bench/chat-rules.ts; docs/performance/chat-rules.md): in the
-- bench's own database only, the shops listed in bench_floor_shops get, at the commit of each
-- purchase, the rows 5 rule messages write (the order's last_message_at, 5 seller messages, the
-- shop's event_seq, 5 message.created events) with fixed texts and nothing else: no rule looked up,
-- no text rendered, no cap counted, no counter kept. Its purchases a second against the shops without
-- rules are what any implementation that writes what the contract requires could reach.
CREATE TABLE bench_floor_shops (shop_id uuid PRIMARY KEY);
CREATE FUNCTION bench_floor_post() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_order uuid := (NEW.data->'order'->>'id')::uuid;
  v_last timestamptz;
  v_seq bigint;
  v_ids uuid[] := ARRAY[gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid()];
BEGIN
  IF NOT EXISTS (SELECT 1 FROM bench_floor_shops WHERE shop_id = NEW.shop_id) THEN RETURN NULL; END IF;
  UPDATE orders SET last_message_at = greatest(date_trunc('milliseconds', clock_timestamp()),
    last_message_at + interval '1 millisecond') + interval '4 milliseconds'
  WHERE id = v_order RETURNING last_message_at INTO v_last;
  INSERT INTO order_messages (id, order_id, sender_role, text, created_at)
  SELECT v_ids[k], v_order, 'seller', 'A fixed message of the floor, number ' || k, v_last - (5 - k) * interval '1 millisecond'
  FROM generate_series(1, 5) k;
  UPDATE shops SET event_seq = event_seq + 5 WHERE id = NEW.shop_id RETURNING event_seq INTO v_seq;
  INSERT INTO events (shop_id, seq, type, data)
  SELECT NEW.shop_id, v_seq - 5 + k, 'message.created', jsonb_build_object('orderId', v_order, 'message',
    jsonb_build_object('id', v_ids[k], 'senderRole', 'seller', 'text', 'A fixed message of the floor, number ' || k,
      'createdAt', to_char((v_last - (5 - k) * interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'ruleId', NULL))
  FROM generate_series(1, 5) k;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER events_bench_floor AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.type = 'order.paid') EXECUTE FUNCTION bench_floor_post();
