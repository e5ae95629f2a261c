// ESLint with neostandard, the style of Fastify's own repositories, TypeScript included.
import neostandard from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'data/**', 'coverage/**', '.tap/**', 'openapi/**', 'client/schema.d.ts']
  }),
  {
    // TypeBox's idiom gives a schema and its static type the same name
    // (`const X = Type.Object(…)`, `type X = Static<typeof X>`); TypeScript
    // itself reports real redeclarations.
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-redeclare': 'off',
      // It cannot see a loop condition changed by another async function (a stop flag, a wake-up).
      'no-unmodified-loop-condition': 'off'
    }
  }
]
