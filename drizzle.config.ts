// drizzle-kit: `npm run db:generate` writes a SQL migration for changes in the schema files.
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './db/schema.ts', './db/portal/schema.ts', './db/claims/schema.ts',
    './db/stats/schema.ts', './db/webhooks/schema.ts', './db/chat-rules/schema.ts'
  ],
  out: './db/migrations'
})
