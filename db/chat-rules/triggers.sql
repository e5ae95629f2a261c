-- Chat rules in the database (docs/chat-rules.md, "How rules fire"): the rules
-- answer in the transaction of the change they answer, so a change that rolls
-- back posts nothing and a committed one is answered exactly once, on whichever
-- instance made it. The migration 0015_chat_rules created them; 0016_chat_rules_one_post redefined
-- chat_rule_text, chat_rules_post and chat_rules_on_event; 0018_chat_rules_buyer_post
-- added chat_rules_buyer_post; 0022_chat_rules_shop_row_last redefined chat_rules_post (the events
-- written last, the buyer's message event with them), chat_rules_buyer_post and chat_rule_values (STABLE,
-- so the planner inlines it); 0023_chat_rules_fewer_statements redefined chat_rule_text, chat_rules_post
-- and chat_rules_on_event as they are here (fewer statements per firing).
--
-- chat_rule_text       a rule's parsed template rendered for an order: trimmed, cut to 4 000 characters.
-- chat_rule_values     the placeholders' values of an order.
-- chat_rules_post      posts rules' messages in an order's chat (as the shop, with `ruleId`), each with
--                      its message.created event (and chat.seller_called when the rule calls the seller),
--                      at most 20 rule messages per order; counts them in chat_rule_counters. It reads
--                      and writes everything else first and the shop's event_seq last, so a concurrent
--                      change of the shop waits for the events and the commit only; given p_buyer_event,
--                      the buyer's message (p_buyer_message) gets its message.created first among them.
-- chat_rules_on_event  the order and claim events' rules, fired by a deferred trigger at commit, after
--                      every event and system message of the change: the shop's first such event of the
--                      transaction answers all of the shop's events of it, each order's run of events with
--                      one post, and marks the shop done (the setting chat_rules.fired, local to the
--                      transaction) so the later firings return at once; an order.delivered also schedules
--                      the order.unconfirmed reminders (chat_rule_reminders).
-- chat_rules_answer    a buyer's message: the message.first rules, then the first keyword rule of the
--                      candidates matched in Node that is not cooling down in this chat. Called by the
--                      versions before 0018 only (kept for a rolling start): chat_rules_buyer_post answers alike.
-- chat_rules_buyer_post  a buyer's message in a shop with message rules, as one statement: checks that the
--                      candidates were matched against the shop's current rules (its chat_rules_version;
--                      otherwise it posts nothing and returns the version), posts the message with its
--                      message.created event as db/orders/messages.ts does, and answers it as chat_rules_answer
--                      would, from what the post already knows (the order's row, the message); the message's
--                      event is written by chat_rules_post with the answers', after them.
-- chat_rules_remind_due  up to N due reminders, each posted once (FOR UPDATE SKIP LOCKED); returns how many
--                      it took and the shops it posted to (Node sends their hint after the commit).
-- Messages posted by rules never fire rules: the trigger ignores message events.
CREATE FUNCTION chat_rule_text(template jsonb, vals jsonb, fields jsonb) RETURNS text
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
END $$;
--> statement-breakpoint
CREATE FUNCTION chat_rule_values(order_id uuid, product_title text, quantity integer, amount numeric) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('orderId', order_id, 'productTitle', product_title, 'quantity', quantity::text,
    'amount', to_char(amount, 'FM999999999999990.00'))
$$;
--> statement-breakpoint
CREATE FUNCTION chat_rules_post(p_order uuid, p_rules uuid[], p_vals jsonb, p_buyer_message jsonb,
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
END $$;
--> statement-breakpoint
CREATE FUNCTION chat_rules_on_event() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER events_chat_rules AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.type IN ('order.paid', 'order.delivered', 'order.completed', 'order.cancelled',
    'claim.opened', 'claim.resolved'))
  EXECUTE FUNCTION chat_rules_on_event();
--> statement-breakpoint
CREATE FUNCTION chat_rules_answer(p_order uuid, p_candidates uuid[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  o record;
  v_buyer record;
  v_rules uuid[] := '{}';
  v_keyword uuid;
BEGIN
  SELECT id, shop_id, product_id, external INTO o FROM orders WHERE id = p_order;
  IF NOT FOUND OR NOT o.external THEN RETURN 0; END IF;
  -- The order's row is locked by the buyer's post before this runs: its latest buyer message is that post.
  SELECT m.id, m.sender_role, m.text, m.created_at, m.rule_id,
    (SELECT count(*) FROM order_messages b WHERE b.order_id = p_order AND b.sender_role = 'buyer') AS buyer_messages
  INTO v_buyer FROM order_messages m
  WHERE m.order_id = p_order AND m.sender_role = 'buyer' ORDER BY m.created_at DESC LIMIT 1;
  IF NOT FOUND THEN RETURN 0; END IF;
  IF v_buyer.buyer_messages = 1 THEN
    SELECT coalesce(array_agg(cr.id ORDER BY cr.priority, cr.created_at, cr.id), '{}') INTO v_rules
    FROM chat_rules cr
    WHERE cr.shop_id = o.shop_id AND cr.enabled AND cr.trigger = 'message.first'
      AND (cardinality(cr.product_ids) = 0 OR o.product_id = ANY(cr.product_ids));
  END IF;
  SELECT cr.id INTO v_keyword
  FROM unnest(p_candidates) WITH ORDINALITY u(id, k) JOIN chat_rules cr ON cr.id = u.id
  WHERE cr.shop_id = o.shop_id AND cr.enabled AND cr.trigger = 'message.keyword'
    AND (cardinality(cr.product_ids) = 0 OR o.product_id = ANY(cr.product_ids))
    AND NOT EXISTS (SELECT 1 FROM order_messages a WHERE a.order_id = p_order AND a.rule_id = cr.id
      AND a.created_at > v_buyer.created_at - make_interval(secs => cr.cooldown_seconds))
  ORDER BY u.k LIMIT 1;
  IF v_keyword IS NOT NULL THEN v_rules := v_rules || v_keyword; END IF;
  RETURN chat_rules_post(p_order, v_rules, '{}', jsonb_build_object('id', v_buyer.id,
    'senderRole', v_buyer.sender_role, 'text', v_buyer.text,
    'createdAt', to_char(v_buyer.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'ruleId', NULL));
END $$;
--> statement-breakpoint
CREATE FUNCTION chat_rules_buyer_post(p_order uuid, p_text text, p_version bigint, p_candidates uuid[])
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
END $$;
--> statement-breakpoint
CREATE FUNCTION chat_rules_remind_due(p_limit integer) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_rules uuid[];
  v_orders uuid[];
  v_shops uuid[] := '{}';
  d record;
BEGIN
  SELECT array_agg(x.rule_id), array_agg(x.order_id) INTO v_rules, v_orders FROM (
    SELECT rule_id, order_id FROM chat_rule_reminders WHERE due_at <= now()
    ORDER BY due_at LIMIT p_limit FOR UPDATE SKIP LOCKED
  ) x;
  IF v_orders IS NULL THEN RETURN jsonb_build_object('taken', 0, 'shops', '[]'::jsonb); END IF;
  -- Every order row first, then the shops in order: no lock cycle with the order writes (order, then shop).
  PERFORM 1 FROM orders WHERE id = ANY(v_orders) ORDER BY id FOR UPDATE;
  FOR d IN
    SELECT c.rule_id, c.order_id, c.due_at, o.shop_id
    FROM unnest(v_rules, v_orders) u(rule_id, order_id)
    JOIN chat_rule_reminders c ON c.rule_id = u.rule_id AND c.order_id = u.order_id
    JOIN orders o ON o.id = u.order_id ORDER BY o.shop_id, o.id
  LOOP
    DELETE FROM chat_rule_reminders WHERE rule_id = d.rule_id AND order_id = d.order_id;
    -- Reminded only when still unconfirmed, with no claim open or escalated at the due time.
    IF EXISTS (SELECT 1 FROM chat_rules cr JOIN orders o ON o.id = d.order_id
      WHERE cr.id = d.rule_id AND cr.enabled AND cr.trigger = 'order.unconfirmed'
        AND o.delivered_at >= cr.enabled_at AND o.status = 'awaiting_confirmation'
        AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.order_id = o.id AND c.created_at <= d.due_at
          AND (c.status IN ('open', 'escalated') OR c.resolved_at > d.due_at)))
    THEN
      IF chat_rules_post(d.order_id, ARRAY[d.rule_id], '{}', NULL) > 0 AND NOT d.shop_id = ANY(v_shops) THEN
        v_shops := v_shops || d.shop_id;
      END IF;
    END IF;
  END LOOP;
  RETURN jsonb_build_object('taken', cardinality(v_orders), 'shops', to_jsonb(v_shops));
END $$;
