-- The chat rules' firing made cheaper (docs/performance/chat-rules.md): the texts rendered by a
-- PL/pgSQL loop instead of an SQL function planned at every call, an order's values computed once
-- per post, the messages' and events' rows built in arrays and written with one statement per table,
-- and a transaction's rule-firing events of a shop answered by its first deferred firing, an order's
-- paid and delivered rules with one post. The definitions are db/chat-rules/triggers.sql's.
CREATE OR REPLACE FUNCTION chat_rule_text(template jsonb, vals jsonb, fields jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s jsonb;
  f jsonb;
  body text := '';
  piece text;
BEGIN
  FOR s IN SELECT value FROM jsonb_array_elements(template) LOOP
    IF s ? 'text' THEN
      body := body || (s->>'text');
    ELSIF s ? 'field' THEN
      piece := '';
      FOR f IN SELECT value FROM jsonb_array_elements(fields) LOOP
        IF f->>'label' = s->>'field' THEN
          piece := coalesce(f->>'value', '');
          EXIT;
        END IF;
      END LOOP;
      body := body || piece;
    ELSE
      body := body || coalesce(vals->>(s->>'placeholder'), '');
    END IF;
  END LOOP;
  RETURN left(regexp_replace(body, '^\s+|\s+$', '', 'g'), 4000);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION chat_rules_post(p_order uuid, p_rules uuid[], p_vals jsonb, p_buyer_message jsonb)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  o record;
  r record;
  posted integer;
  v_vals jsonb;
  v_body text;
  v_rules uuid[] := '{}';
  v_texts text[] := '{}';
  v_calls boolean[] := '{}';
  v_ids uuid[] := '{}';
  v_types text[] := '{}';
  v_data jsonb[] := '{}';
  v_at timestamptz;
  n integer;
  k integer;
  v_last timestamptz;
  v_seq bigint;
BEGIN
  SELECT id, shop_id, external, product_title, quantity, amount, field_values INTO o FROM orders WHERE id = p_order;
  IF NOT FOUND OR NOT o.external OR cardinality(p_rules) = 0 THEN RETURN 0; END IF;
  SELECT count(*) INTO posted FROM order_messages WHERE order_id = p_order AND rule_id IS NOT NULL;
  IF posted >= 20 THEN RETURN 0; END IF;
  v_vals := chat_rule_values(o.id, o.product_title, o.quantity, o.amount) || p_vals;
  -- The rules' texts in order, empty ones skipped, up to the cap.
  FOR r IN SELECT cr.id, cr.template, cr.call_seller FROM unnest(p_rules) WITH ORDINALITY u(id, k)
      JOIN chat_rules cr ON cr.id = u.id ORDER BY u.k LOOP
    EXIT WHEN posted + cardinality(v_rules) >= 20;
    v_body := chat_rule_text(r.template, v_vals, o.field_values);
    CONTINUE WHEN v_body = '';
    v_rules := v_rules || r.id;
    v_texts := v_texts || v_body;
    v_calls := v_calls || (r.call_seller AND p_buyer_message IS NOT NULL);
  END LOOP;
  n := cardinality(v_rules);
  IF n = 0 THEN RETURN 0; END IF;
  -- The messages 1 ms apart after the chat's last; each one's event, then its chat.seller_called if any.
  UPDATE orders SET last_message_at = greatest(date_trunc('milliseconds', clock_timestamp()),
    last_message_at + interval '1 millisecond') + (n - 1) * interval '1 millisecond'
  WHERE id = p_order RETURNING last_message_at INTO v_last;
  FOR k IN 1..n LOOP
    v_ids := v_ids || gen_random_uuid();
    v_at := v_last - (n - k) * interval '1 millisecond';
    v_types := v_types || 'message.created'::text;
    v_data := v_data || jsonb_build_object('orderId', p_order, 'message', jsonb_build_object('id', v_ids[k],
      'senderRole', 'seller', 'text', v_texts[k],
      'createdAt', to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'ruleId', v_rules[k]));
    IF v_calls[k] THEN
      v_types := v_types || 'chat.seller_called'::text;
      v_data := v_data || jsonb_build_object('orderId', p_order, 'message', p_buyer_message, 'ruleId', v_rules[k]);
    END IF;
  END LOOP;
  INSERT INTO order_messages (id, order_id, sender_role, text, created_at, rule_id)
  SELECT u.id, p_order, 'seller', u.body, v_last - (n - u.k) * interval '1 millisecond', u.rule
  FROM unnest(v_ids, v_texts, v_rules) WITH ORDINALITY u(id, body, rule, k);
  UPDATE shops SET event_seq = event_seq + cardinality(v_types) WHERE id = o.shop_id RETURNING event_seq INTO v_seq;
  INSERT INTO events (shop_id, seq, type, data)
  SELECT o.shop_id, v_seq - cardinality(v_types) + u.k, u.type, u.data
  FROM unnest(v_types, v_data) WITH ORDINALITY u(type, data, k);
  UPDATE chat_rules cr SET fired_count = cr.fired_count + 1, last_fired_at = v_last - (n - u.k) * interval '1 millisecond'
  FROM unnest(v_rules) WITH ORDINALITY u(id, k) WHERE cr.id = u.id;
  RETURN n;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION chat_rules_on_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_fired text := coalesce(current_setting('chat_rules.fired', true), '');
  v_key text := NEW.shop_id::text || ':';
  v_at integer := position(v_key in v_fired);
  ev record;
  v_order uuid;
  v_product uuid;
  v_vals jsonb;
  v_rules uuid[];
  g_order uuid;
  g_vals jsonb;
  g_rules uuid[] := '{}';
  v_through bigint;
BEGIN
  -- An earlier firing in this transaction answered every later event of the shop already.
  IF v_at > 0 AND NEW.seq <= split_part(substr(v_fired, v_at + length(v_key)), ',', 1)::bigint THEN
    RETURN NULL;
  END IF;
  -- This is the shop's first unanswered event of the transaction, which holds the shop row's lock
  -- since its first event: every event of the shop from NEW's seq on is this transaction's. They are
  -- answered here in seq order, each order's run of consecutive events with one post.
  FOR ev IN SELECT seq, type, data FROM events WHERE shop_id = NEW.shop_id AND seq >= NEW.seq
      AND type IN ('order.paid', 'order.delivered', 'order.completed', 'order.cancelled', 'claim.opened', 'claim.resolved')
      ORDER BY seq LOOP
    v_vals := '{}';
    IF ev.type LIKE 'claim.%' THEN
      v_order := (ev.data->'claim'->>'orderId')::uuid;
      v_product := (ev.data->'claim'->>'productId')::uuid;
      v_vals := jsonb_build_object('claimReason', ev.data->'claim'->>'reason',
        'claimRespondBy', ev.data->'claim'->>'respondBy');
    ELSE
      v_order := (ev.data->'order'->>'id')::uuid;
      v_product := (ev.data->'order'->>'productId')::uuid;
    END IF;
    IF ev.type = 'order.delivered' THEN
      INSERT INTO chat_rule_reminders (rule_id, order_id, delivered_at, due_at)
      SELECT cr.id, v_order, (ev.data->'order'->>'deliveredAt')::timestamptz,
        (ev.data->'order'->>'deliveredAt')::timestamptz + make_interval(mins => cr.after_minutes)
      FROM chat_rules cr
      WHERE cr.shop_id = NEW.shop_id AND cr.enabled AND cr.trigger = 'order.unconfirmed'
        AND (cardinality(cr.product_ids) = 0 OR v_product = ANY(cr.product_ids))
      ON CONFLICT DO NOTHING;
    END IF;
    SELECT array_agg(cr.id ORDER BY cr.priority, cr.created_at, cr.id) INTO v_rules
    FROM chat_rules cr
    WHERE cr.shop_id = NEW.shop_id AND cr.enabled AND cr.trigger = ev.type
      AND (cardinality(cr.product_ids) = 0 OR v_product = ANY(cr.product_ids));
    IF v_rules IS NOT NULL THEN
      IF g_order IS NOT NULL AND (g_order <> v_order OR g_vals <> v_vals) THEN
        PERFORM chat_rules_post(g_order, g_rules, g_vals, NULL);
        g_rules := '{}';
      END IF;
      g_order := v_order;
      g_vals := v_vals;
      g_rules := g_rules || v_rules;
    END IF;
    v_through := ev.seq;
  END LOOP;
  IF g_order IS NOT NULL THEN PERFORM chat_rules_post(g_order, g_rules, g_vals, NULL); END IF;
  PERFORM set_config('chat_rules.fired', v_fired || v_key || v_through || ',', true);
  RETURN NULL;
END $$;
