-- The chat rules' firing in fewer statements (docs/performance/chat-rules.md, "Fewer statements per
-- firing"); each statement a PL/pgSQL function runs starts and ends an executor of its own, and that,
-- not the rows, was most of what the machinery added to a purchase:
--   chat_rule_text        walks the template with array subscripts instead of a query per call;
--   chat_rules_post       takes a text without placeholders as it is (no call); makes the ids in a loop;
--                         writes the order's row and the messages in one statement, the shop's row and
--                         the events in another;
--   chat_rules_on_event   reads the transaction's events of the shop with each one's rules and whether
--                         it schedules a reminder in one statement (were: one, plus two per event).
-- What they do is unchanged. The definitions are db/chat-rules/triggers.sql's.
CREATE OR REPLACE FUNCTION chat_rule_text(template jsonb, vals jsonb, fields jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s jsonb;
  body text := '';
  piece text;
BEGIN
  FOR i IN 0 .. jsonb_array_length(template) - 1 LOOP
    s := template->i;
    IF s ? 'text' THEN
      body := body || (s->>'text');
    ELSIF s ? 'field' THEN
      piece := '';
      FOR j IN 0 .. coalesce(jsonb_array_length(fields), 0) - 1 LOOP
        IF fields->j->>'label' = s->>'field' THEN
          piece := coalesce(fields->j->>'value', '');
          EXIT;
        END IF;
      END LOOP;
      body := body || piece;
    ELSE
      body := body || coalesce(vals->>(s->>'placeholder'), '');
    END IF;
  END LOOP;
  RETURN left(regexp_replace(body, '^\s+|\s+$', '', 'g'), 4000);
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION chat_rules_post(p_order uuid, p_rules uuid[], p_vals jsonb, p_buyer_message jsonb,
  p_buyer_event boolean DEFAULT false)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  o record;
  v_rules uuid[];
  v_texts text[];
  v_calls boolean[];
  v_ids uuid[] := '{}';
  n integer := 0;
  v_events integer;
  v_last timestamptz;
BEGIN
  SELECT x.shop_id, x.field_values, chat_rule_values(x.id, x.product_title, x.quantity, x.amount) || p_vals AS vals,
    (SELECT count(*) FROM order_messages m WHERE m.order_id = x.id AND m.rule_id IS NOT NULL) AS posted
  INTO o FROM orders x WHERE x.id = p_order AND x.external;
  IF NOT FOUND THEN RETURN 0; END IF;
  -- The rules' texts in order, empty ones skipped, up to the cap (OFFSET 0: each text is rendered
  -- for the given rules only, never pushed down into a scan of every rule); a text without
  -- placeholders (one text segment) is taken as it is, without a call.
  IF cardinality(p_rules) > 0 AND o.posted < 20 THEN
    SELECT array_agg(r.id ORDER BY r.k), array_agg(r.body ORDER BY r.k), array_agg(r.call ORDER BY r.k)
    INTO v_rules, v_texts, v_calls
    FROM (SELECT s.k, s.id, s.call, s.body FROM (
        SELECT u.k, cr.id, cr.call_seller AND p_buyer_message IS NOT NULL AS call,
          CASE WHEN jsonb_array_length(cr.template) = 1 AND cr.template->0 ? 'text'
            THEN left(regexp_replace(cr.template->0->>'text', '^\s+|\s+$', '', 'g'), 4000)
            ELSE chat_rule_text(cr.template, o.vals, o.field_values) END AS body
        FROM unnest(p_rules) WITH ORDINALITY u(id, k) JOIN chat_rules cr ON cr.id = u.id OFFSET 0) s
      WHERE s.body <> '' ORDER BY s.k LIMIT 20 - o.posted) r;
    n := coalesce(cardinality(v_rules), 0);
  END IF;
  -- The messages 1 ms apart after the chat's last, written with the order's row in one statement.
  IF n > 0 THEN
    FOR i IN 1 .. n LOOP v_ids[i] := gen_random_uuid(); END LOOP;
    WITH t AS (
      UPDATE orders SET last_message_at = greatest(date_trunc('milliseconds', clock_timestamp()),
        last_message_at + interval '1 millisecond') + (n - 1) * interval '1 millisecond'
      WHERE id = p_order RETURNING last_message_at
    ), m AS (
      INSERT INTO order_messages (id, order_id, sender_role, text, created_at, rule_id)
      SELECT u.id, p_order, 'seller', u.body, t.last_message_at - (n - u.k) * interval '1 millisecond', u.rule
      FROM t, unnest(v_ids, v_texts, v_rules) WITH ORDINALITY u(id, body, rule, k)
    )
    SELECT t.last_message_at INTO v_last FROM t;
  END IF;
  -- The events last, so the shop's row (its event_seq) is held from here to the commit only: the buyer's
  -- message first when asked, then each rule message's message.created and its chat.seller_called if any
  -- (the shop's row updated in the statement that writes them); the rules' counters after them.
  v_events := n + CASE WHEN p_buyer_event THEN 1 ELSE 0 END + coalesce(cardinality(array_positions(v_calls, true)), 0);
  IF v_events = 0 THEN RETURN 0; END IF;
  WITH s AS (
    UPDATE shops SET event_seq = event_seq + v_events WHERE id = o.shop_id RETURNING event_seq
  )
  INSERT INTO events (shop_id, seq, type, data)
  SELECT o.shop_id, s.event_seq - v_events + row_number() OVER (ORDER BY e.k, e.sub), e.type, e.data FROM s, (
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
CREATE OR REPLACE FUNCTION chat_rules_on_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_fired text := coalesce(current_setting('chat_rules.fired', true), '');
  v_key text := NEW.shop_id::text || ':';
  v_at integer := position(v_key in v_fired);
  ev record;
  g_order uuid;
  g_vals jsonb;
  g_rules uuid[] := '{}';
  v_through bigint := NEW.seq;
BEGIN
  -- An earlier firing in this transaction answered every later event of the shop already.
  IF v_at > 0 AND NEW.seq <= split_part(substr(v_fired, v_at + length(v_key)), ',', 1)::bigint THEN
    RETURN NULL;
  END IF;
  -- This is the shop's first unanswered event of the transaction, which holds the shop row's lock
  -- since its first event: every event of the shop from NEW's seq on is this transaction's. They are
  -- answered here in seq order, each order's run of consecutive events with one post; one statement
  -- reads them with each one's rules and whether it schedules a reminder.
  FOR ev IN SELECT e.seq, e.type, e.data, p.order_id, p.product_id, p.vals,
      (SELECT array_agg(cr.id ORDER BY cr.priority, cr.created_at, cr.id) FROM chat_rules cr
        WHERE cr.shop_id = e.shop_id AND cr.enabled AND cr.trigger = e.type
          AND (cardinality(cr.product_ids) = 0 OR p.product_id = ANY(cr.product_ids))) AS rules,
      e.type = 'order.delivered' AND EXISTS (SELECT 1 FROM chat_rules cr
        WHERE cr.shop_id = e.shop_id AND cr.enabled AND cr.trigger = 'order.unconfirmed'
          AND (cardinality(cr.product_ids) = 0 OR p.product_id = ANY(cr.product_ids))) AS remind
    FROM events e CROSS JOIN LATERAL (
      SELECT CASE WHEN e.type LIKE 'claim.%' THEN (e.data->'claim'->>'orderId')::uuid ELSE (e.data->'order'->>'id')::uuid END AS order_id,
        CASE WHEN e.type LIKE 'claim.%' THEN (e.data->'claim'->>'productId')::uuid ELSE (e.data->'order'->>'productId')::uuid END AS product_id,
        CASE WHEN e.type LIKE 'claim.%' THEN jsonb_build_object('claimReason', e.data->'claim'->>'reason',
          'claimRespondBy', e.data->'claim'->>'respondBy') ELSE '{}'::jsonb END AS vals) p
    WHERE e.shop_id = NEW.shop_id AND e.seq >= NEW.seq
      AND e.type IN ('order.paid', 'order.delivered', 'order.completed', 'order.cancelled', 'claim.opened', 'claim.resolved')
    ORDER BY e.seq LOOP
    -- An order.delivered schedules the order.unconfirmed reminders of its product.
    IF ev.remind THEN
      INSERT INTO chat_rule_reminders (rule_id, order_id, delivered_at, due_at)
      SELECT cr.id, ev.order_id, (ev.data->'order'->>'deliveredAt')::timestamptz,
        (ev.data->'order'->>'deliveredAt')::timestamptz + make_interval(mins => cr.after_minutes)
      FROM chat_rules cr
      WHERE cr.shop_id = NEW.shop_id AND cr.enabled AND cr.trigger = 'order.unconfirmed'
        AND (cardinality(cr.product_ids) = 0 OR ev.product_id = ANY(cr.product_ids))
      ON CONFLICT DO NOTHING;
    END IF;
    IF ev.rules IS NOT NULL THEN
      IF g_order IS NOT NULL AND (g_order <> ev.order_id OR g_vals <> ev.vals) THEN
        PERFORM chat_rules_post(g_order, g_rules, g_vals, NULL);
        g_rules := '{}';
      END IF;
      g_order := ev.order_id;
      g_vals := ev.vals;
      g_rules := g_rules || ev.rules;
    END IF;
    v_through := ev.seq;
  END LOOP;
  IF g_order IS NOT NULL THEN PERFORM chat_rules_post(g_order, g_rules, g_vals, NULL); END IF;
  PERFORM set_config('chat_rules.fired', v_fired || v_key || v_through || ',', true);
  RETURN NULL;
END $$;
