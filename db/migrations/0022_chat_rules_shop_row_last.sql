-- The chat rules' post takes the shop's row last (docs/chat-rules.md, "What a rule costs";
-- docs/performance/chat-rules.md): chat_rules_post reads and writes everything else first and the
-- shop's event_seq with the events at its end, so a concurrent change of the same shop (a buyer's
-- message in another chat, above all) waits for the events and the commit only, not for the texts
-- and messages. Given p_buyer_event, the buyer's message's own message.created is written with the
-- answers' events, first; chat_rules_buyer_post uses that instead of writing it before the answers.
-- chat_rule_values is STABLE (to_char is), so the planner inlines it. The definitions are
-- db/chat-rules/triggers.sql's. Callers with four arguments (chat_rules_on_event, chat_rules_answer,
-- chat_rules_remind_due) get the default.
DROP FUNCTION chat_rules_post(uuid, uuid[], jsonb, jsonb);--> statement-breakpoint
CREATE FUNCTION chat_rules_post(p_order uuid, p_rules uuid[], p_vals jsonb, p_buyer_message jsonb,
  p_buyer_event boolean DEFAULT false)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  o record;
  v_rules uuid[];
  v_texts text[];
  v_calls boolean[];
  v_ids uuid[];
  n integer := 0;
  v_events integer;
  v_last timestamptz;
  v_seq bigint;
BEGIN
  SELECT x.shop_id, x.field_values, chat_rule_values(x.id, x.product_title, x.quantity, x.amount) || p_vals AS vals,
    (SELECT count(*) FROM order_messages m WHERE m.order_id = x.id AND m.rule_id IS NOT NULL) AS posted
  INTO o FROM orders x WHERE x.id = p_order AND x.external;
  IF NOT FOUND THEN RETURN 0; END IF;
  -- The rules' texts in order, empty ones skipped, up to the cap (OFFSET 0: each text is rendered
  -- for the given rules only, never pushed down into a scan of every rule).
  IF cardinality(p_rules) > 0 AND o.posted < 20 THEN
    SELECT array_agg(r.id ORDER BY r.k), array_agg(r.body ORDER BY r.k), array_agg(r.call ORDER BY r.k)
    INTO v_rules, v_texts, v_calls
    FROM (SELECT s.k, s.id, s.call, s.body FROM (
        SELECT u.k, cr.id, cr.call_seller AND p_buyer_message IS NOT NULL AS call,
          chat_rule_text(cr.template, o.vals, o.field_values) AS body
        FROM unnest(p_rules) WITH ORDINALITY u(id, k) JOIN chat_rules cr ON cr.id = u.id OFFSET 0) s
      WHERE s.body <> '' ORDER BY s.k LIMIT 20 - o.posted) r;
    n := coalesce(cardinality(v_rules), 0);
  END IF;
  -- The messages 1 ms apart after the chat's last.
  IF n > 0 THEN
    UPDATE orders SET last_message_at = greatest(date_trunc('milliseconds', clock_timestamp()),
      last_message_at + interval '1 millisecond') + (n - 1) * interval '1 millisecond'
    WHERE id = p_order RETURNING last_message_at INTO v_last;
    v_ids := ARRAY(SELECT gen_random_uuid() FROM generate_series(1, n));
    INSERT INTO order_messages (id, order_id, sender_role, text, created_at, rule_id)
    SELECT u.id, p_order, 'seller', u.body, v_last - (n - u.k) * interval '1 millisecond', u.rule
    FROM unnest(v_ids, v_texts, v_rules) WITH ORDINALITY u(id, body, rule, k);
  END IF;
  -- The events last, so the shop's row (its event_seq) is held from here to the commit only: the buyer's
  -- message first when asked, then each rule message's message.created and its chat.seller_called if any.
  v_events := n + CASE WHEN p_buyer_event THEN 1 ELSE 0 END + coalesce(cardinality(array_positions(v_calls, true)), 0);
  IF v_events = 0 THEN RETURN 0; END IF;
  UPDATE shops SET event_seq = event_seq + v_events WHERE id = o.shop_id RETURNING event_seq INTO v_seq;
  INSERT INTO events (shop_id, seq, type, data)
  SELECT o.shop_id, v_seq - v_events + row_number() OVER (ORDER BY e.k, e.sub), e.type, e.data FROM (
    SELECT 0 AS k, 0 AS sub, 'message.created' AS type,
      jsonb_build_object('orderId', p_order, 'message', p_buyer_message) AS data
    WHERE p_buyer_event
    UNION ALL
    SELECT u.k, 0, 'message.created', jsonb_build_object('orderId', p_order, 'message', jsonb_build_object('id', u.id,
      'senderRole', 'seller', 'text', u.body, 'createdAt',
      to_char((v_last - (n - u.k) * interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'ruleId', u.rule))
    FROM unnest(v_ids, v_texts, v_rules) WITH ORDINALITY u(id, body, rule, k)
    UNION ALL
    SELECT u.k, 1, 'chat.seller_called', jsonb_build_object('orderId', p_order, 'message', p_buyer_message, 'ruleId', u.rule)
    FROM unnest(v_rules, v_calls) WITH ORDINALITY u(rule, call, k) WHERE u.call
  ) e;
  IF n > 0 THEN
    INSERT INTO chat_rule_counters AS c (rule_id, fired_count, last_fired_at)
    SELECT u.id, count(*), max(v_last - (n - u.k) * interval '1 millisecond')
    FROM unnest(v_rules) WITH ORDINALITY u(id, k) GROUP BY u.id ORDER BY u.id
    ON CONFLICT (rule_id) DO UPDATE SET fired_count = c.fired_count + excluded.fired_count,
      last_fired_at = excluded.last_fired_at;
  END IF;
  RETURN n;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION chat_rules_buyer_post(p_order uuid, p_text text, p_version bigint, p_candidates uuid[])
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_version bigint;
  o record;
  v_message jsonb;
  v_id uuid;
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
  -- Under the order row's lock: the greeting for the chat's first buyer message, then the first
  -- candidate not cooling down in this chat; chat_rules_post keeps the cap and writes the message's
  -- event with the answers' (the shop's row taken last).
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
  PERFORM chat_rules_post(p_order, v_rules, '{}', v_message, true);
  RETURN jsonb_build_object('message', v_message, 'eventShopId', o.shop_id);
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION chat_rule_values(order_id uuid, product_title text, quantity integer, amount numeric) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('orderId', order_id, 'productTitle', product_title, 'quantity', quantity::text,
    'amount', to_char(amount, 'FM999999999999990.00'))
$$;
