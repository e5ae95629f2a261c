-- A buyer's message in a shop with message rules as one statement (docs/chat-rules.md, "A buyer's
-- message"): chat_rules_buyer_post posts the message with its event and answers it (as
-- chat_rules_answer does, from what the post already knows), after checking
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
  v_id uuid;
  v_seq bigint;
  v_rules uuid[] := '{}';
  v_keyword uuid;
BEGIN
  SELECT s.chat_rules_version INTO v_version FROM orders x JOIN shops s ON s.id = x.shop_id WHERE x.id = p_order;
  IF NOT FOUND THEN RETURN NULL; END IF;
  -- The candidates were matched against another version of the shop's rules: nothing is posted.
  IF v_version IS DISTINCT FROM p_version THEN RETURN jsonb_build_object('rulesVersion', v_version); END IF;
  -- The post as db/orders/messages.ts makes it: the order's row locked, 1 ms after the chat's last.
  UPDATE orders SET last_message_at = greatest(date_trunc('milliseconds', clock_timestamp()),
    last_message_at + interval '1 millisecond')
  WHERE id = p_order RETURNING id, shop_id, product_id, external, last_message_at INTO o;
  INSERT INTO order_messages (order_id, sender_role, text, created_at)
  VALUES (o.id, 'buyer', p_text, o.last_message_at)
  RETURNING id, jsonb_build_object('id', id, 'senderRole', sender_role, 'text', text,
    'createdAt', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'ruleId', rule_id)
  INTO v_id, v_message;
  IF NOT o.external THEN RETURN jsonb_build_object('message', v_message, 'eventShopId', NULL); END IF;
  UPDATE shops SET event_seq = event_seq + 1 WHERE id = o.shop_id RETURNING event_seq INTO v_seq;
  INSERT INTO events (shop_id, seq, type, data)
  VALUES (o.shop_id, v_seq, 'message.created', jsonb_build_object('orderId', o.id, 'message', v_message));
  -- Under the order row's lock: the greeting for the chat's first buyer message, then the first
  -- candidate not cooling down in this chat; chat_rules_post keeps the cap.
  IF NOT EXISTS (SELECT 1 FROM order_messages b
      WHERE b.order_id = p_order AND b.sender_role = 'buyer' AND b.id <> v_id) THEN
    SELECT coalesce(array_agg(cr.id ORDER BY cr.priority, cr.created_at, cr.id), '{}') INTO v_rules
    FROM chat_rules cr
    WHERE cr.shop_id = o.shop_id AND cr.enabled AND cr.trigger = 'message.first'
      AND (cardinality(cr.product_ids) = 0 OR o.product_id = ANY(cr.product_ids));
  END IF;
  IF cardinality(p_candidates) > 0 THEN
    SELECT cr.id INTO v_keyword
    FROM unnest(p_candidates) WITH ORDINALITY u(id, k) JOIN chat_rules cr ON cr.id = u.id
    WHERE cr.shop_id = o.shop_id AND cr.enabled AND cr.trigger = 'message.keyword'
      AND (cardinality(cr.product_ids) = 0 OR o.product_id = ANY(cr.product_ids))
      AND NOT EXISTS (SELECT 1 FROM order_messages a WHERE a.order_id = p_order AND a.rule_id = cr.id
        AND a.created_at > o.last_message_at - make_interval(secs => cr.cooldown_seconds))
    ORDER BY u.k LIMIT 1;
    IF v_keyword IS NOT NULL THEN v_rules := v_rules || v_keyword; END IF;
  END IF;
  IF cardinality(v_rules) > 0 THEN PERFORM chat_rules_post(p_order, v_rules, '{}', v_message); END IF;
  RETURN jsonb_build_object('message', v_message, 'eventShopId', o.shop_id);
END $$;
