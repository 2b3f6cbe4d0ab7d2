// ESLint over the browser client (`make lint`): the recommended rules, for ES modules that the
// browser loads as they are (no build step), plus a few rules that catch real bugs in such code.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    ignores: ["node_modules/", ".venv/", "staticfiles/", "var/", "docs/", "benchmarks/", "tests/"],
  },
  {
    files: ["frontend/static/frontend/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: { ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      ...js.configs.recommended.rules,
      eqeqeq: ["error", "smart"], // `==` coerces: "0" == 0, [] == false
      "no-shadow": "error", // an inner name hiding an outer one reads the wrong value
      // a name read before its `const` or `let` in the same scope throws (the temporal dead zone);
      // a closure that runs later may name what is declared below it
      "no-use-before-define": ["error", { functions: false, classes: false, variables: false }],
    },
  },
  {
    // The service worker, a classic script served at /sw.js with VERSION and SHELL put before it.
    files: ["frontend/sw.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "script",
      globals: { ...globals.serviceworker, VERSION: "readonly", SHELL: "readonly" },
    },
    rules: js.configs.recommended.rules,
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { ecmaVersion: "latest", sourceType: "module" },
    rules: js.configs.recommended.rules,
  },
];
