-- Delivered values are stored sealed (docs/security.md): `orders.delivered_values`
-- holds a plain list (`[]` before delivery; the values of rows written before
-- this release until `cli values:reencrypt` seals them) or {keyId, sealed}. NOT
-- VALID: existing rows are lists already, and the upgrade takes no long lock.
ALTER TABLE "orders" ADD CONSTRAINT "orders_delivered_values_shape" CHECK (jsonb_typeof("orders"."delivered_values") = 'array' OR (jsonb_typeof("orders"."delivered_values") = 'object' AND jsonb_typeof("orders"."delivered_values"->'keyId') = 'string' AND jsonb_typeof("orders"."delivered_values"->'sealed') = 'string')) NOT VALID;
