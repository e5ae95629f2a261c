CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shop_id" uuid NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "categories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"path_ru" text NOT NULL,
	"path_en" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "category_filter_options" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"filter_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"label" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "category_filters" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"category_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"affects_price" boolean NOT NULL
);
--> statement-breakpoint
CREATE TABLE "currency_rates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shop_id" uuid NOT NULL,
	"code" text NOT NULL,
	"rate" numeric(18, 6) NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_records" (
	"key" text PRIMARY KEY NOT NULL,
	"fingerprint" text NOT NULL,
	"response" jsonb,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shop_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount" numeric(14, 2) NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "media" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shop_id" uuid NOT NULL,
	"ext" text NOT NULL,
	"mime" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"sender_role" text NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shop_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"product_title" text NOT NULL,
	"quantity" integer NOT NULL,
	"amount" numeric(14, 2) NOT NULL,
	"status" text DEFAULT 'paid' NOT NULL,
	"assignee_type" text DEFAULT 'user' NOT NULL,
	"field_values" jsonb NOT NULL,
	"delivered_values" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"cancel_reason" text,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL,
	"taken_at" timestamp (3) with time zone,
	"delivered_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"cancelled_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_field_options" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"field_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"label" text NOT NULL,
	"price" numeric(14, 2) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_fields" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"product_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"type" text NOT NULL,
	"label" text NOT NULL,
	"required" boolean NOT NULL,
	"multiple" boolean NOT NULL,
	"value_pricing" boolean DEFAULT false NOT NULL,
	"value_min" numeric(20, 6) DEFAULT '0' NOT NULL,
	"value_max" numeric(20, 6) DEFAULT '0' NOT NULL,
	"value_step" numeric(20, 6) DEFAULT '0' NOT NULL,
	"data_request" boolean DEFAULT false NOT NULL,
	"data_request_webhook_url" text DEFAULT '' NOT NULL,
	"request_after_payment" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_filters" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"product_id" uuid NOT NULL,
	"filter_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"option_ids" uuid[] NOT NULL
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shop_id" uuid NOT NULL,
	"category_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"active" boolean NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"external" boolean NOT NULL,
	"currency_rate_id" uuid,
	"price" numeric(14, 2) NOT NULL,
	"image_id" uuid,
	"employee_reward_type" text NOT NULL,
	"employee_reward_value" numeric(14, 2) NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shops" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT date_trunc('milliseconds', now()) NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "category_filter_options" ADD CONSTRAINT "category_filter_options_filter_id_category_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."category_filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "category_filters" ADD CONSTRAINT "category_filters_category_id_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."categories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "currency_rates" ADD CONSTRAINT "currency_rates_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "media" ADD CONSTRAINT "media_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_messages" ADD CONSTRAINT "order_messages_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_field_options" ADD CONSTRAINT "product_field_options_field_id_product_fields_id_fk" FOREIGN KEY ("field_id") REFERENCES "public"."product_fields"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_fields" ADD CONSTRAINT "product_fields_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_filters" ADD CONSTRAINT "product_filters_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_filters" ADD CONSTRAINT "product_filters_filter_id_category_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."category_filters"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_category_id_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."categories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_currency_rate_id_currency_rates_id_fk" FOREIGN KEY ("currency_rate_id") REFERENCES "public"."currency_rates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_image_id_media_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."media"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_idx" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_shop_idx" ON "api_keys" USING btree ("shop_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "categories_path_en_idx" ON "categories" USING btree ("path_en");--> statement-breakpoint
CREATE INDEX "category_filter_options_filter_idx" ON "category_filter_options" USING btree ("filter_id","position");--> statement-breakpoint
CREATE INDEX "category_filters_category_idx" ON "category_filters" USING btree ("category_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "currency_rates_shop_code_idx" ON "currency_rates" USING btree ("shop_id","code");--> statement-breakpoint
CREATE INDEX "idempotency_records_expires_idx" ON "idempotency_records" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_order_kind_idx" ON "ledger_entries" USING btree ("order_id","kind");--> statement-breakpoint
CREATE INDEX "ledger_entries_shop_idx" ON "ledger_entries" USING btree ("shop_id","created_at");--> statement-breakpoint
CREATE INDEX "media_shop_idx" ON "media" USING btree ("shop_id");--> statement-breakpoint
CREATE UNIQUE INDEX "order_messages_order_created_idx" ON "order_messages" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE INDEX "orders_shop_status_created_idx" ON "orders" USING btree ("shop_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_product_idx" ON "orders" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "product_field_options_field_idx" ON "product_field_options" USING btree ("field_id","position");--> statement-breakpoint
CREATE INDEX "product_fields_product_idx" ON "product_fields" USING btree ("product_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "product_filters_product_filter_idx" ON "product_filters" USING btree ("product_id","filter_id");--> statement-breakpoint
CREATE INDEX "products_shop_created_idx" ON "products" USING btree ("shop_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);