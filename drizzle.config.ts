// drizzle-kit: `npm run db:generate` writes a SQL migration for changes in db/schema.ts.
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema.ts',
  out: './db/migrations'
})
