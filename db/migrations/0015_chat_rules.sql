CREATE TABLE "chat_rule_reminders" (
	"rule_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"delivered_at" timestamp (3) with time zone NOT NULL,
	"due_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "chat_rule_reminders_rule_id_order_id_pk" PRIMARY KEY("rule_id","order_id")
);
--> statement-breakpoint
CREATE TABLE "chat_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shop_id" uuid NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean NOT NULL,
	"trigger" text NOT NULL,
	"priority" integer NOT NULL,
	"product_ids" uuid[] NOT NULL,
	"keywords" text[] NOT NULL,
	"cooldown_seconds" integer NOT NULL,
	"after_minutes" integer,
	"call_seller" boolean NOT NULL,
	"text" text NOT NULL,
	"template" jsonb NOT NULL,
	"fired_count" integer DEFAULT 0 NOT NULL,
	"last_fired_at" timestamp (3) with time zone,
	"enabled_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL
);
--> statement-breakpoint
ALTER TABLE "order_messages" ADD COLUMN "rule_id" uuid;--> statement-breakpoint
ALTER TABLE "shops" ADD COLUMN "chat_rules_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_rules" ADD CONSTRAINT "chat_rules_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_rule_reminders_due_idx" ON "chat_rule_reminders" USING btree ("due_at");--> statement-breakpoint
CREATE INDEX "chat_rules_shop_idx" ON "chat_rules" USING btree ("shop_id","priority","created_at");--> statement-breakpoint
CREATE INDEX "chat_rules_firing_idx" ON "chat_rules" USING btree ("shop_id","trigger") WHERE enabled;
--> statement-breakpoint
-- Chat rules in the database (docs/chat-rules.md, "How rules fire"): the rules
-- answer in the transaction of the change they answer, so a change that rolls
-- back posts nothing and a committed one is answered exactly once, on whichever
-- instance made it. The migration 0015_chat_rules applies this file's text as is.
--
-- chat_rule_text       a rule's parsed template rendered for an order: trimmed, cut to 4 000 characters.
-- chat_rule_values     the placeholders' values of an order.
-- chat_rules_post      posts rules' messages in an order's chat (as the shop, with `ruleId`), each with
--                      its message.created event (and chat.seller_called when the rule calls the seller),
--                      at most 20 rule messages per order; counts them on the rules.
-- chat_rules_on_event  the order and claim events' rules, fired by a deferred trigger at commit, after
--                      every event and system message of the change; an order.delivered also schedules
--                      the order.unconfirmed reminders (chat_rule_reminders).
-- chat_rules_answer    a buyer's message: the message.first rules, then the first keyword rule of the
--                      candidates matched in Node that is not cooling down in this chat.
-- chat_rules_remind_due  up to N due reminders, each posted once (FOR UPDATE SKIP LOCKED); returns how many
--                      it took and the shops it posted to (Node sends their hint after the commit).
-- Messages posted by rules never fire rules: the trigger ignores message events.
CREATE FUNCTION chat_rule_text(template jsonb, vals jsonb, fields jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT left(regexp_replace(coalesce(string_agg(CASE
      WHEN s ? 'text' THEN s->>'text'
      WHEN s ? 'field' THEN coalesce((SELECT f->>'value' FROM jsonb_array_elements(fields) f
        WHERE f->>'label' = s->>'field' LIMIT 1), '')
      ELSE coalesce(vals->>(s->>'placeholder'), '') END, '' ORDER BY n), ''), '^\s+|\s+$', '', 'g'), 4000)
  FROM jsonb_array_elements(template) WITH ORDINALITY t(s, n)
$$;
--> statement-breakpoint
CREATE FUNCTION chat_rule_values(order_id uuid, product_title text, quantity integer, amount numeric) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('orderId', order_id, 'productTitle', product_title, 'quantity', quantity::text,
    'amount', to_char(amount, 'FM999999999999990.00'))
$$;
--> statement-breakpoint
CREATE FUNCTION chat_rules_post(p_order uuid, p_rules uuid[], p_vals jsonb, p_buyer_message jsonb)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  o record;
  posted integer;
  done integer;
BEGIN
  SELECT id, shop_id, external, product_title, quantity, amount, field_values INTO o FROM orders WHERE id = p_order;
  IF NOT FOUND OR NOT o.external OR cardinality(p_rules) = 0 THEN RETURN 0; END IF;
  SELECT count(*) INTO posted FROM order_messages WHERE order_id = p_order AND rule_id IS NOT NULL;
  IF posted >= 20 THEN RETURN 0; END IF;
  -- Every message in one statement per table: the rules' texts in order (empty ones skipped, up to the cap), the
  -- messages 1 ms apart after the chat's last, each message's event followed by its chat.seller_called if any.
  WITH r AS (
    SELECT cr.id, cr.call_seller AND p_buyer_message IS NOT NULL AS calls, u.k,
      chat_rule_text(cr.template, chat_rule_values(o.id, o.product_title, o.quantity, o.amount) || p_vals,
        o.field_values) AS body
    FROM unnest(p_rules) WITH ORDINALITY u(id, k) JOIN chat_rules cr ON cr.id = u.id
  ), q AS (
    SELECT * FROM (SELECT r.*, row_number() OVER (ORDER BY k) AS n FROM r WHERE body <> '') x WHERE n <= 20 - posted
  ), c AS (
    SELECT count(*)::integer AS total, count(*) FILTER (WHERE calls)::integer AS calls FROM q
  ), t AS (
    UPDATE orders SET last_message_at = greatest(date_trunc('milliseconds', clock_timestamp()),
      last_message_at + interval '1 millisecond') + (c.total - 1) * interval '1 millisecond'
    FROM c WHERE orders.id = p_order AND c.total > 0
    RETURNING orders.last_message_at
  ), m AS (
    INSERT INTO order_messages (order_id, sender_role, text, created_at, rule_id)
    SELECT p_order, 'seller', q.body, t.last_message_at - (c.total - q.n) * interval '1 millisecond', q.id
    FROM q, c, t ORDER BY q.n
    RETURNING id, text, created_at, rule_id
  ), mq AS (
    SELECT m.*, q.n, q.calls,
      q.n + coalesce(sum(q.calls::integer) OVER (ORDER BY q.n ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS ord
    FROM m JOIN q ON q.id = m.rule_id
  ), evs AS (
    SELECT mq.ord, 'message.created' AS type, jsonb_build_object('orderId', p_order, 'message', jsonb_build_object(
      'id', mq.id, 'senderRole', 'seller', 'text', mq.text,
      'createdAt', to_char(mq.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'ruleId', mq.rule_id)) AS data
    FROM mq
    UNION ALL
    SELECT mq.ord + 1, 'chat.seller_called',
      jsonb_build_object('orderId', p_order, 'message', p_buyer_message, 'ruleId', mq.rule_id)
    FROM mq WHERE mq.calls
  ), s AS (
    UPDATE shops SET event_seq = event_seq + c.total + c.calls FROM c
    WHERE shops.id = o.shop_id AND c.total > 0
    RETURNING shops.event_seq, c.total + c.calls AS added
  ), e AS (
    INSERT INTO events (shop_id, seq, type, data)
    SELECT o.shop_id, s.event_seq - s.added + evs.ord, evs.type, evs.data FROM s, evs ORDER BY evs.ord
  ), f AS (
    UPDATE chat_rules cr SET fired_count = cr.fired_count + 1, last_fired_at = m.created_at FROM m WHERE cr.id = m.rule_id
  )
  SELECT total INTO done FROM c;
  RETURN done;
END $$;
--> statement-breakpoint
CREATE FUNCTION chat_rules_on_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_order uuid;
  v_product uuid;
  v_vals jsonb := '{}';
  v_rules uuid[];
BEGIN
  IF NEW.type LIKE 'claim.%' THEN
    v_order := (NEW.data->'claim'->>'orderId')::uuid;
    v_product := (NEW.data->'claim'->>'productId')::uuid;
    v_vals := jsonb_build_object('claimReason', NEW.data->'claim'->>'reason',
      'claimRespondBy', NEW.data->'claim'->>'respondBy');
  ELSE
    v_order := (NEW.data->'order'->>'id')::uuid;
    v_product := (NEW.data->'order'->>'productId')::uuid;
  END IF;
  IF NEW.type = 'order.delivered' THEN
    INSERT INTO chat_rule_reminders (rule_id, order_id, delivered_at, due_at)
    SELECT cr.id, v_order, (NEW.data->'order'->>'deliveredAt')::timestamptz,
      (NEW.data->'order'->>'deliveredAt')::timestamptz + make_interval(mins => cr.after_minutes)
    FROM chat_rules cr
    WHERE cr.shop_id = NEW.shop_id AND cr.enabled AND cr.trigger = 'order.unconfirmed'
      AND (cardinality(cr.product_ids) = 0 OR v_product = ANY(cr.product_ids))
    ON CONFLICT DO NOTHING;
  END IF;
  SELECT array_agg(cr.id ORDER BY cr.priority, cr.created_at, cr.id) INTO v_rules
  FROM chat_rules cr
  WHERE cr.shop_id = NEW.shop_id AND cr.enabled AND cr.trigger = NEW.type
    AND (cardinality(cr.product_ids) = 0 OR v_product = ANY(cr.product_ids));
  IF v_rules IS NOT NULL THEN PERFORM chat_rules_post(v_order, v_rules, v_vals, NULL); END IF;
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
