// The chat rules' database functions and trigger live beside the feature
// (db/chat-rules/triggers.sql); the migration that applies them holds the very same text.
import t from 'tap'
import { readFileSync } from 'node:fs'

t.test('migration 0015 applies db/chat-rules/triggers.sql as it is', async (t) => {
  const file = readFileSync(new URL('../../db/chat-rules/triggers.sql', import.meta.url), 'utf8')
  const migration = readFileSync(new URL('../../db/migrations/0015_chat_rules.sql', import.meta.url), 'utf8')
  t.ok(migration.endsWith(file), 'the migration ends with the file\'s text')
})
