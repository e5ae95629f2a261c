CREATE TABLE "order_counts" (
	"shop_id" uuid NOT NULL,
	"status" text NOT NULL,
	"product_id" uuid NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "order_counts_shop_id_status_product_id_pk" PRIMARY KEY("shop_id","status","product_id")
);
--> statement-breakpoint
DROP INDEX "orders_shop_status_created_idx";--> statement-breakpoint
DROP INDEX "orders_product_idx";--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "external" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "order_counts" ADD CONSTRAINT "order_counts_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_counts" ADD CONSTRAINT "order_counts_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "orders_visible_shop_status_created_idx" ON "orders" USING btree ("shop_id","status","created_at","id") WHERE "orders"."external";--> statement-breakpoint
CREATE INDEX "orders_product_status_created_idx" ON "orders" USING btree ("product_id","status","created_at","id");