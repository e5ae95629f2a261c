-- An idempotency key is held by its first request under a lease: a token naming the request
-- and an end time (docs/architecture.md, Glossary). The token's column takes the lease's name.
-- Rolling-safe in two steps (docs/deploying-rolling.md, Schema changes): this one adds
-- lease_token beside claim_token and copies the tokens held now; the instances of this version
-- write both and release a key only where both still name their request, so an older
-- instance still running (which knows only claim_token) and a newer one never drop each
-- other's hold. The next migration drops claim_token once no older instance runs.
ALTER TABLE "idempotency_records" ADD COLUMN "lease_token" text;
--> statement-breakpoint
UPDATE "idempotency_records" SET "lease_token" = "claim_token" WHERE "claim_token" IS NOT NULL;
