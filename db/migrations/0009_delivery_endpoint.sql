ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "endpoint_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "kind" text DEFAULT 'event' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "order_id" uuid;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "attempt_log" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "updated_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "purpose" text DEFAULT 'events' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_order_idx" ON "webhook_deliveries" USING btree ("order_id") WHERE kind = 'delivery_request';--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_endpoints_delivery_idx" ON "webhook_endpoints" USING btree ("shop_id") WHERE purpose = 'delivery';--> statement-breakpoint
-- Events fan out to webhook endpoints only: the delivery endpoint gets delivery
-- requests (docs/delivery-endpoint.md), never events.
CREATE OR REPLACE FUNCTION events_enqueue_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (endpoint_id, event_id, webhook_id, event_type, next_attempt_at)
  SELECT e.id, NEW.id, NEW.id, NEW.type, now()
  FROM webhook_endpoints e
  WHERE e.shop_id = NEW.shop_id AND e.enabled AND e.purpose = 'events'
    AND (cardinality(e.event_types) = 0 OR NEW.type = ANY(e.event_types));
  RETURN NULL;
END $$;
