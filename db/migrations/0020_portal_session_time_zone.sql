-- The seller's time zone for a portal session (docs/portal.md): every time on the
-- pages is shown in it, changeable beside the language; Europe/Moscow until changed.
ALTER TABLE "portal_sessions" ADD COLUMN "tz" text DEFAULT 'Europe/Moscow' NOT NULL;
