-- What the portal needs to say stored English texts in the page's language
-- (docs/portal/building.md "Stored texts"): why an attempt failed as a kind and its numbers
-- (domain/attempt-failures.ts; the attempts in attempt_log carry it as `failure`), why an
-- endpoint is disabled (domain/disabled-reasons.ts), and
-- a system message's kind (domain/system-messages.ts). Rows written before have none:
-- the portal shows their stored text as it is.
ALTER TABLE "webhook_deliveries" ADD COLUMN "last_error_detail" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "disabled_detail" jsonb;--> statement-breakpoint
ALTER TABLE "order_messages" ADD COLUMN "meaning" jsonb;
