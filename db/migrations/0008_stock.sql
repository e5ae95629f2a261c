CREATE TABLE "stock_counts" (
	"product_id" uuid NOT NULL,
	"option_key" uuid NOT NULL,
	"available" integer DEFAULT 0 NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"removed" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL,
	CONSTRAINT "stock_counts_product_id_option_key_pk" PRIMARY KEY("product_id","option_key")
);
--> statement-breakpoint
CREATE TABLE "stock_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shop_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"option_key" uuid NOT NULL,
	"position" bigint GENERATED ALWAYS AS IDENTITY (sequence name "stock_items_position_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"status" text DEFAULT 'available' NOT NULL,
	"order_id" uuid,
	"ciphertext" "bytea" NOT NULL,
	"nonce" "bytea" NOT NULL,
	"key_id" text NOT NULL,
	"value_hash" "bytea" NOT NULL,
	"preview" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL,
	"delivered_at" timestamp (3) with time zone,
	"removed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "auto_delivery" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "stock_option_field_id" uuid;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "low_stock_threshold" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "deactivate_when_empty" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "deactivated_by_stock" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "stock_updated_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL;--> statement-breakpoint
ALTER TABLE "stock_counts" ADD CONSTRAINT "stock_counts_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_items" ADD CONSTRAINT "stock_items_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_items" ADD CONSTRAINT "stock_items_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stock_items_take_idx" ON "stock_items" USING btree ("product_id","option_key","position") WHERE status = 'available';--> statement-breakpoint
CREATE UNIQUE INDEX "stock_items_value_idx" ON "stock_items" USING btree ("product_id","value_hash") WHERE status in ('available', 'delivered');--> statement-breakpoint
CREATE INDEX "stock_items_list_idx" ON "stock_items" USING btree ("product_id","position");--> statement-breakpoint
CREATE INDEX "stock_items_status_list_idx" ON "stock_items" USING btree ("product_id","status","position");--> statement-breakpoint
CREATE INDEX "stock_items_order_idx" ON "stock_items" USING btree ("order_id") WHERE order_id is not null;--> statement-breakpoint
CREATE INDEX "stock_items_key_idx" ON "stock_items" USING btree ("key_id","position");