// drizzle-kit: `npm run db:generate` writes a SQL migration for changes in the schema files.
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './db/tables.ts', './db/portal/tables.ts', './db/claims/tables.ts',
    './db/stats/tables.ts', './db/webhooks/tables.ts', './db/chat-rules/tables.ts'
  ],
  out: './db/migrations'
})
