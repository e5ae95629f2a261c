-- A buyer's message in a shop with message rules as one statement (docs/chat-rules.md, "A buyer's
-- message"): chat_rules_buyer_post posts the message with its event and answers it, after checking
-- that the keyword candidates Node matched were matched against the shop's current rules. It
-- replaces the pipelined transaction (post, then chat_rules_answer) of the earlier versions, which
-- keep working during a rolling start: chat_rules_answer stays. The definition is
-- db/chat-rules/triggers.sql's.
CREATE FUNCTION chat_rules_buyer_post(p_order uuid, p_text text, p_version bigint, p_candidates uuid[])
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_version bigint;
  o record;
  v_message jsonb;
  v_seq bigint;
BEGIN
  SELECT s.chat_rules_version INTO v_version FROM orders x JOIN shops s ON s.id = x.shop_id WHERE x.id = p_order;
  IF NOT FOUND THEN RETURN NULL; END IF;
  -- The candidates were matched against another version of the shop's rules: nothing is posted.
  IF v_version IS DISTINCT FROM p_version THEN RETURN jsonb_build_object('rulesVersion', v_version); END IF;
  -- The post as db/orders/messages.ts makes it: the order's row locked, 1 ms after the chat's last.
  UPDATE orders SET last_message_at = greatest(date_trunc('milliseconds', clock_timestamp()),
    last_message_at + interval '1 millisecond')
  WHERE id = p_order RETURNING id, shop_id, external, last_message_at INTO o;
  INSERT INTO order_messages (order_id, sender_role, text, created_at)
  VALUES (o.id, 'buyer', p_text, o.last_message_at)
  RETURNING jsonb_build_object('id', id, 'senderRole', sender_role, 'text', text,
    'createdAt', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'ruleId', rule_id)
  INTO v_message;
  IF o.external THEN
    UPDATE shops SET event_seq = event_seq + 1 WHERE id = o.shop_id RETURNING event_seq INTO v_seq;
    INSERT INTO events (shop_id, seq, type, data)
    VALUES (o.shop_id, v_seq, 'message.created', jsonb_build_object('orderId', o.id, 'message', v_message));
    PERFORM chat_rules_answer(p_order, p_candidates);
  END IF;
  RETURN jsonb_build_object('message', v_message, 'eventShopId', CASE WHEN o.external THEN o.shop_id END);
END $$;
