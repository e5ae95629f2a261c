CREATE TABLE "claims" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shop_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"reason" text NOT NULL,
	"text" text NOT NULL,
	"value_indexes" jsonb NOT NULL,
	"respond_by" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	"escalated_at" timestamp (3) with time zone,
	"resolution_kind" text,
	"resolution_by" text,
	"resolution_note" text,
	"resolution_amount" numeric(14, 2)
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "auto_replace" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "stock_counts" ADD COLUMN "defective" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "stock_items" ADD COLUMN "delivered_index" integer;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "claims_one_active_idx" ON "claims" USING btree ("order_id") WHERE status in ('open', 'escalated');--> statement-breakpoint
CREATE INDEX "claims_due_idx" ON "claims" USING btree ("respond_by") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "claims_order_idx" ON "claims" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE INDEX "claims_shop_list_idx" ON "claims" USING btree ("shop_id","created_at" DESC,"id" DESC);--> statement-breakpoint
DROP INDEX "stock_items_value_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "stock_items_value_idx" ON "stock_items" USING btree ("product_id","value_hash") WHERE status in ('available', 'delivered', 'defective');
