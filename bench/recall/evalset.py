"""A retrieval evaluation set: a realistic multi-tool memory corpus and graded queries.

``TARGETS`` are hand-written memories a developer's assistants would plausibly
hold (store entries, Claude Code project memory, Cursor/Windsurf/Copilot rules,
AGENTS.md/CLAUDE.md files …). Each names the queries it answers (grade 2) and
may name queries it is related to (grade 1). ``distractors()`` adds generated
notes that share the same vocabulary, so that a query word alone is not enough.

Queries are the kinds of things agents and people type: an alias or
abbreviation the entry only lists in ``aliases``, a different inflection
(``migrations`` for ``migrate``), a 4+ letter prefix (``auth``), several words
of which a good answer covers all, and questions with stop words.

``build(root)`` writes the corpus in the host tools' layouts under ``root``
(home, store, projects) and returns the judgements keyed by file path.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Target:
    key: str
    where: str  # "store" | "claude:<project>" | "cursor:<project>" | "agents:<project>" | …
    type: str
    name: str
    body: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    queries: tuple[str, ...] = ()  # answered (grade 2)
    related: tuple[str, ...] = ()  # related (grade 1)
    extra: dict = field(default_factory=dict)


T = Target
TARGETS: tuple[Target, ...] = (
    T(
        "k8s",
        "store",
        "fact",
        "Cluster layout",
        "Three node pools run in eu-west-1; the ingress controller is nginx and certificates "
        "come from cert-manager.",
        aliases=("kubernetes", "k8s", "eks"),
        queries=(
            "kubernetes",
            "k8s node pools",
            "k8s certificates",
        ),
    ),
    T(
        "sso",
        "store",
        "decision",
        "Login goes through Okta",
        "All staff dashboards use the identity provider; local passwords were removed.",
        description="Identity provider for internal tools",
        aliases=("sso", "single sign-on"),
        queries=(
            "sso",
            "single sign on for dashboards",
            "okta login",
        ),
        extra={"why": "one offboarding switch"},
    ),
    T(
        "jwt",
        "store",
        "decision",
        "JWT access tokens with 15 minute expiry",
        "Access tokens are short lived JWTs; refresh tokens are opaque and stored hashed. "
        "Authentication middleware validates the signature with the JWKS endpoint.",
        description="Token format for the public API",
        queries=(
            "auth token expiry",
            "jwt refresh tokens",
            "refreshing tokens",
            "expiring access tokens",
        ),
        related=("authentication middleware",),
    ),
    T(
        "authmw",
        "claude:api",
        "fact",
        "Authentication middleware order",
        "The authentication middleware must run before rate limiting, otherwise anonymous "
        "requests share one bucket.",
        queries=(
            "authentication middleware",
            "auth middleware order",
            "authenticating api requests",
        ),
        related=("rate limiting",),
    ),
    T(
        "ratelimit",
        "store",
        "fact",
        "API rate limits",
        "Public API: 600 requests per minute per key, burst 100. Limits are enforced in Redis "
        "with a sliding window.",
        aliases=("throttling", "quota"),
        queries=(
            "rate limiting",
            "throttling",
            "api quota per key",
            "throttled requests",
        ),
    ),
    T(
        "pgchoice",
        "store",
        "decision",
        "Postgres is the primary database",
        "We chose Postgres over MySQL for JSONB, partial indexes and logical replication.",
        description="Primary datastore",
        aliases=("postgresql", "pg"),
        queries=("postgresql", "why postgres over mysql"),
        related=("database migrations",),
    ),
    T(
        "migrations",
        "cursor:api",
        "rules",
        "migrations",
        "Never edit a migration that has been applied. Write a new migration; keep each one "
        "reversible and run it against a copy of production first.",
        description="Database migration rules",
        queries=("database migrations", "editing migration"),
        related=("migrate production copy",),
    ),
    T(
        "migcopy",
        "store",
        "lesson",
        "Run migrations on a copy first",
        "A migration locked the orders table for 40 minutes. Rehearse every migration on a "
        "restored snapshot and time it.",
        extra={
            "trigger": "before running a schema change",
            "how_to_apply": "restore last night's snapshot, run, time it",
        },
        queries=(
            "migrate production copy",
            "schema change rehearsal snapshot",
            "rehearsing migrations",
        ),
        related=("database migrations",),
    ),
    T(
        "redis-cache",
        "claude:webshop",
        "fact",
        "Product page cache",
        "Product pages are cached in Redis for five minutes; the cache key includes the "
        "currency and locale.",
        description="redis page cache",
        queries=("caching product pages", "redis cache key locale"),
    ),
    T(
        "cdn",
        "store",
        "fact",
        "CDN in front of static assets",
        "Static assets are served by CloudFront with immutable hashed filenames; HTML is never "
        "cached at the edge.",
        aliases=("cloudfront", "edge cache"),
        queries=(
            "cloudfront",
            "edge caching html",
            "cached html",
        ),
        related=("caching product pages",),
    ),
    T(
        "flaky",
        "store",
        "lesson",
        "Retry flaky browser tests once",
        "Safari service worker tests flake under load. Rerun once before investigating; if it "
        "fails twice it is real.",
        extra={"trigger": "a browser test fails intermittently", "how_to_apply": "rerun once"},
        aliases=("flaky tests",),
        queries=(
            "flaky tests",
            "intermittent browser test failure",
            "retrying flaky tests",
        ),
    ),
    T(
        "sw-safari",
        "claude:webshop",
        "lesson",
        "Safari service worker cache",
        "Safari evicts service worker caches after seven days without a visit; do not rely on "
        "them for offline checkout.",
        queries=(
            "safari service worker",
            "offline checkout safari",
            "stale service worker caches",
        ),
        related=("intermittent browser test failure",),
    ),
    T(
        "pytest-style",
        "copilot:api",
        "rules",
        "Testing conventions",
        "Use pytest with plain asserts and fixtures; no unittest classes. Name tests after the "
        "behaviour, not the function.",
        queries=("pytest conventions", "unittest classes"),
        related=("test naming",),
    ),
    T(
        "test-naming",
        "store",
        "preference",
        "Name tests after behaviour",
        "test_refund_is_rejected_after_30_days, not test_refund_2.",
        extra={"scope": "global"},
        queries=("test naming",),
        related=("pytest conventions",),
    ),
    T(
        "small-prs",
        "store",
        "preference",
        "Small pull requests",
        "Keep pull requests under 400 changed lines; split refactors from behaviour changes.",
        aliases=("pr size", "diff size"),
        extra={"scope": "global"},
        queries=("pr size", "how big should a pull request be"),
    ),
    T(
        "commit-msg",
        "agents:webshop",
        "instructions",
        "AGENTS",
        "Commit messages use the imperative mood and reference the ticket, e.g. "
        '"Fix rounding in totals (SHOP-123)".',
        queries=("commit message format",),
    ),
    T(
        "typing",
        "claude-global",
        "instructions",
        "CLAUDE",
        "Python: type hints everywhere, mypy strict in CI, no Any in public signatures.",
        queries=("type hints mypy", "mypy strict"),
    ),
    T(
        "ruff",
        "store",
        "decision",
        "Ruff replaces flake8 and isort",
        "One tool, ten times faster; configured in pyproject with line length 100.",
        aliases=("linter", "lint"),
        queries=("linter", "flake8 isort replacement"),
    ),
    T(
        "deploy-freeze",
        "store",
        "decision",
        "No deploys on Fridays after 3pm",
        "Deployment freeze on Friday afternoons; hotfixes need two approvals.",
        description="Deploy freeze window",
        queries=(
            "deploying on friday",
            "deployment freeze",
            "deployments on fridays",
        ),
        extra={"why": "weekend on-call is thin"},
    ),
    T(
        "blue-green",
        "windsurf:api",
        "rules",
        "deploy",
        "Deployments are blue-green behind the load balancer; switch traffic only after the "
        "smoke tests pass.",
        queries=("blue green deployment", "smoke tests before switching traffic"),
    ),
    T(
        "rollback",
        "store",
        "lesson",
        "Roll back first, debug later",
        "When error rates double after a deploy, roll back immediately and debug on staging.",
        extra={"trigger": "error rate spikes after a deploy", "how_to_apply": "roll back"},
        queries=(
            "rollback after deploy",
            "error rate spike deploy",
            "rolling back a release",
        ),
    ),
    T(
        "staging",
        "store",
        "fact",
        "Staging hosts",
        "staging-1 and staging-2 sit behind staging.internal; data is refreshed nightly from "
        "an anonymised snapshot.",
        aliases=("preprod",),
        queries=("staging hosts", "preprod"),
    ),
    T(
        "secrets",
        "store",
        "decision",
        "Secrets live in Vault",
        "Application secrets are read from Vault at start-up; never commit .env files.",
        aliases=("credentials", "api keys"),
        queries=(
            "where are credentials stored",
            "api keys",
            "how are secrets handled",
        ),
    ),
    T(
        "env-files",
        "cline:api",
        "rules",
        "env",
        "Do not create or edit .env files; ask for the variable name instead.",
        queries=("env files",),
        related=("where are credentials stored", "env"),
    ),
    T(
        "logging",
        "store",
        "preference",
        "Structured logging",
        "Log JSON with a request id on every line; no print statements in services.",
        aliases=("structlog",),
        queries=(
            "structured logging",
            "structlog request id",
            "logs with request ids",
        ),
        related=("log",),
    ),
    T(
        "tracing",
        "claude:api",
        "fact",
        "Tracing with OpenTelemetry",
        "Traces go to Tempo via the OTLP exporter; sample 10% in production, 100% on staging.",
        aliases=("otel",),
        queries=("otel", "tracing sample rate"),
    ),
    T(
        "metrics",
        "store",
        "fact",
        "Metrics and dashboards",
        "Prometheus scrapes every service; Grafana dashboards live in the ops repo.",
        queries=(
            "prometheus grafana dashboards",
            "dashboard for metrics",
        ),
    ),
    T(
        "alerts",
        "store",
        "lesson",
        "Alert on symptoms, not causes",
        "Page on user-facing error rate and latency; CPU alerts go to a ticket queue.",
        extra={"trigger": "adding an alert", "how_to_apply": "page only on symptoms"},
        queries=("alerting on cpu", "page on latency symptoms", "alerting"),
    ),
    T(
        "oncall",
        "store",
        "fact",
        "On-call rotation",
        "Weekly rotation, handover on Monday 10:00; the secondary covers nights.",
        aliases=("pager duty", "pagerduty"),
        queries=("pagerduty", "on call handover"),
    ),
    T(
        "queue",
        "store",
        "decision",
        "SQS for background jobs",
        "Background jobs use SQS with at-least-once delivery; handlers must be idempotent.",
        aliases=("job queue", "message queue"),
        extra={"why": "managed, no broker to run"},
        queries=(
            "background jobs queue",
            "idempotent handlers",
            "idempotent job handlers",
        ),
    ),
    T(
        "idempotency",
        "claude:api",
        "fact",
        "Idempotency keys",
        "POST /payments requires an Idempotency-Key header; keys are kept 24 hours.",
        queries=("idempotency key payments",),
        related=("idempotent handlers",),
    ),
    T(
        "payments",
        "store",
        "fact",
        "Payment provider",
        "Stripe handles cards; SEPA debits go through GoCardless. Webhooks are verified with "
        "the signing secret.",
        aliases=("stripe",),
        queries=("stripe", "sepa direct debit"),
    ),
    T(
        "webhooks",
        "store",
        "lesson",
        "Webhooks arrive out of order",
        "Stripe webhooks can arrive out of order; compare the event timestamp before applying.",
        extra={"trigger": "handling a webhook", "how_to_apply": "check event time"},
        queries=(
            "webhook ordering",
            "out of order events",
            "events arriving out of order",
        ),
        related=("stripe",),
    ),
    T(
        "currency",
        "claude:webshop",
        "decision",
        "Money as integer cents",
        "Amounts are stored as integer minor units with an ISO currency code; never floats.",
        aliases=("money", "decimal"),
        queries=(
            "money floats",
            "storing amounts currency",
            "storing money",
        ),
    ),
    T(
        "rounding",
        "store",
        "lesson",
        "Round once, at the end",
        "VAT rounding per line produced one-cent mismatches; round the invoice total only.",
        extra={"trigger": "computing taxes", "how_to_apply": "round at the end"},
        queries=(
            "vat rounding",
            "one cent mismatch",
            "vat rounded per line",
        ),
    ),
    T(
        "i18n",
        "store",
        "fact",
        "Translations",
        "Strings are extracted with Babel; translators work in Crowdin; German is the reference "
        "locale.",
        aliases=("i18n", "l10n", "localisation"),
        queries=(
            "i18n",
            "crowdin translations",
            "translating strings",
        ),
    ),
    T(
        "feature-flags",
        "store",
        "decision",
        "Feature flags via Unleash",
        "Every risky change ships behind a flag; flags older than 90 days get a cleanup ticket.",
        aliases=("toggles",),
        queries=(
            "feature flags",
            "feature toggles cleanup",
            "flagging risky changes",
        ),
    ),
    T(
        "search",
        "claude:webshop",
        "fact",
        "Product search",
        "Search runs on OpenSearch with a synonym list maintained by merchandising.",
        aliases=("elasticsearch",),
        queries=(
            "elasticsearch",
            "search synonyms",
            "searching synonyms",
        ),
    ),
    T(
        "images",
        "store",
        "fact",
        "Image resizing",
        "Images are resized on the fly by imgproxy and cached by the CDN for a year.",
        queries=(
            "image resizing",
            "imgproxy",
            "resizing images",
        ),
    ),
    T(
        "email",
        "store",
        "fact",
        "Transactional email",
        "Emails go out through Postmark; templates live in the mailers directory; bounces "
        "disable the address.",
        queries=("transactional email", "postmark bounces"),
    ),
    T(
        "gdpr",
        "store",
        "decision",
        "Delete personal data after 30 days",
        "Closed accounts are anonymised after 30 days; backups age out after 35.",
        aliases=("gdpr", "privacy", "right to be forgotten"),
        queries=(
            "gdpr",
            "account deletion personal data",
            "anonymised accounts",
        ),
    ),
    T(
        "backups",
        "store",
        "fact",
        "Database backups",
        "Nightly base backups plus WAL archiving; restores are tested monthly.",
        aliases=("pitr",),
        queries=("backups restore test", "pitr wal archiving", "backed up nightly"),
    ),
    T(
        "dep-updates",
        "store",
        "preference",
        "Dependency updates weekly",
        "Renovate opens grouped PRs on Mondays; merge patch updates the same day.",
        aliases=("renovate", "dependabot"),
        extra={"scope": "project"},
        queries=("dependabot", "dependency updates"),
    ),
    T(
        "docker",
        "agents:api",
        "instructions",
        "AGENTS",
        "Build images with the multi-stage Dockerfile; never run containers as root.",
        queries=(
            "docker root user",
            "multi stage dockerfile",
            "running containers as root",
        ),
    ),
    T(
        "ci",
        "store",
        "fact",
        "CI pipeline",
        "GitHub Actions: lint, unit, integration, then build. The integration job needs the "
        "postgres service container.",
        aliases=("github actions", "continuous integration"),
        queries=(
            "continuous integration",
            "github actions integration job",
            "integration tests in ci",
        ),
    ),
    T(
        "caching-ci",
        "store",
        "lesson",
        "Cache pip downloads in CI",
        "CI time halved after caching pip wheels keyed on the lock file hash.",
        extra={"trigger": "slow CI", "how_to_apply": "cache wheels"},
        queries=("slow ci caching", "pip cache ci"),
    ),
    T(
        "api-versioning",
        "store",
        "decision",
        "Version the API in the URL",
        "Public endpoints live under /v1, /v2; breaking changes need a new version and six "
        "months of overlap.",
        queries=("api versioning", "breaking changes endpoints"),
    ),
    T(
        "pagination",
        "store",
        "decision",
        "Cursor pagination",
        "List endpoints use opaque cursors, not offsets, so pages stay stable while rows are "
        "inserted.",
        aliases=("paging",),
        queries=(
            "pagination offsets",
            "paging cursors",
            "what did we decide about paginating lists",
        ),
    ),
    T(
        "graphql",
        "store",
        "decision",
        "No GraphQL for now",
        "REST covers the mobile app; GraphQL was rejected for the caching and auth complexity.",
        extra={"rejected": "GraphQL gateway"},
        queries=("graphql",),
    ),
    T(
        "mobile",
        "store",
        "fact",
        "Mobile release train",
        "The iOS and Android apps release every two weeks; hotfixes go through expedited review.",
        aliases=("ios", "android"),
        queries=("ios release", "android release cadence"),
    ),
    T(
        "a11y",
        "cursor:webshop",
        "rules",
        "accessibility",
        "Every interactive element needs a label; colour contrast at least 4.5:1; test with "
        "VoiceOver.",
        description="Accessibility rules",
        aliases=("a11y",),
        queries=("a11y", "colour contrast"),
    ),
    T(
        "css",
        "cursor:webshop",
        "rules",
        "styles",
        "Tailwind utility classes only; no inline styles; dark mode via the class strategy.",
        description="Styling rules",
        queries=("tailwind dark mode", "inline styles"),
    ),
    T(
        "react",
        "claude:webshop",
        "preference",
        "React components",
        "Function components with hooks; state in the URL where it can be shared.",
        queries=("react hooks components",),
    ),
    T(
        "ts-strict",
        "store",
        "preference",
        "TypeScript strict mode",
        "strict: true and noUncheckedIndexedAccess in every tsconfig.",
        aliases=("typescript",),
        queries=("typescript strict", "tsconfig"),
    ),
    T(
        "monorepo",
        "store",
        "decision",
        "One repository for web and API",
        "A pnpm workspace holds web, api and shared packages; CI runs only affected packages.",
        aliases=("monorepo",),
        queries=("monorepo", "pnpm workspace affected packages"),
    ),
    T(
        "timezone",
        "store",
        "lesson",
        "Store timestamps in UTC",
        "A report double-counted the DST hour; store UTC and convert at the edge.",
        extra={"trigger": "handling dates", "how_to_apply": "UTC in storage"},
        queries=(
            "timezone dst bug",
            "utc timestamps",
            "daylight saving timestamps",
        ),
    ),
    T(
        "n-plus-one",
        "claude:api",
        "lesson",
        "Watch for N+1 queries",
        "The orders page issued 300 queries; use select_related and check the query count "
        "in tests.",
        extra={"trigger": "listing related objects", "how_to_apply": "prefetch"},
        queries=(
            "n+1 queries orders page",
            "query count tests",
            "prefetching related orders",
        ),
    ),
    T(
        "indexes",
        "store",
        "fact",
        "Slow queries and indexes",
        "pg_stat_statements is on; add an index when a query shows up in the top ten by total "
        "time.",
        queries=("slow query index", "pg_stat_statements"),
    ),
    T(
        "goal-offline",
        "store",
        "goal",
        "Offline-capable checkout",
        "Let customers finish checkout with a flaky connection by Q3.",
        extra={"set_on": "2026-04-01"},
        queries=("offline checkout goal",),
        related=("offline checkout safari",),
    ),
    T(
        "next-export",
        "store",
        "next_action",
        "Export orders as CSV",
        "Add a CSV export to the orders admin page.",
        extra={"added": "2026-05-02"},
        queries=("csv export orders",),
    ),
    T(
        "gemini-mem",
        "gemini-global",
        "instructions",
        "GEMINI",
        "## Gemini Added Memories\n- The user prefers pnpm over npm.\n- Use vitest for unit "
        "tests in the web package.",
        queries=("pnpm or npm", "vitest"),
    ),
    T(
        "codex-agents",
        "codex-global",
        "instructions",
        "AGENTS",
        "Keep diffs minimal; never reformat files you did not change.",
        queries=("reformat unrelated files", "minimal diffs"),
    ),
    T(
        "continue-review",
        "continue-global",
        "rules",
        "review",
        "Review checklist: tests added, migrations reversible, no secrets in logs.",
        queries=("code review checklist",),
        related=("database migrations",),
    ),
    T(
        "zed-rules",
        "zed:api",
        "rules",
        ".rules",
        "The API uses FastAPI with pydantic v2 models; prefer dependency injection over globals.",
        queries=("fastapi pydantic", "dependency injection globals"),
    ),
    T(
        "aider-conv",
        "aider:api",
        "rules",
        "CONVENTIONS",
        "SQL keywords uppercase; table names plural; foreign keys end in _id.",
        queries=("sql naming conventions", "foreign key names"),
    ),
)

# Issue 15's query classes, written before the fixes they test. ``CLASSES`` names the
# class of each of their queries; every other query is "general".
ISSUE15: tuple[Target, ...] = (
    # source: Cursor's global user rules (~/.config/Cursor/User/rules/*.md)
    T(
        "cursor-exports",
        "cursor-global",
        "rules",
        "typescript-exports",
        "Prefer named exports in TypeScript modules; default exports make renames harder.",
        queries=("named exports typescript", "default exports"),
    ),
    T(
        "cursor-commits",
        "cursor-global",
        "rules",
        "commit-style",
        "Write commit subjects in the imperative mood, under 72 characters.",
        queries=("imperative commit subjects",),
    ),
    # stem: short words fold onto three-letter stems
    T(
        "pods-evicted",
        "claude:api",
        "lesson",
        "Evicted pods",
        "Pods evicted under memory pressure always lacked memory requests; set them.",
        queries=("pod",),
    ),
    T(
        "cron-jobs",
        "store",
        "fact",
        "Nightly jobs",
        "Cron jobs are scheduled in UTC and must be idempotent.",
        queries=("cron job",),
    ),
    T(
        "prod-bugs",
        "store",
        "lesson",
        "Regression test first",
        "Bugs found in production get a regression test before the fix is merged.",
        queries=("production bug",),
    ),
    T(
        "ci-runs",
        "windsurf:api",
        "rules",
        "CI concurrency",
        "CI runs are cancelled when a newer commit lands on the branch.",
        queries=("ci run",),
    ),
    T(
        "log-retention",
        "store",
        "fact",
        "Retention of application logs",
        "Logs are kept 30 days in Loki; logging below info is dropped at the agent.",
        queries=("log",),
    ),
    T(
        "key-rotation",
        "claude:webshop",
        "decision",
        "Signing keys rotate quarterly",
        "Webhook signing keys are rotated every quarter; old keys verify for a week.",
        queries=("signing key",),
    ),
    # prefix3: a three-letter query word reaches the longer word
    T(
        "dep-upgrades",
        "store",
        "preference",
        "Dependency upgrades in batches",
        "Renovate opens one batched pull request of dependency upgrades every Monday.",
        queries=("dep",),
    ),
    T(
        "env-setup",
        "claude:webshop",
        "fact",
        "Local environment bootstrap",
        "A new laptop gets its environment from the bootstrap script and direnv.",
        queries=("env bootstrap laptop",),
        related=("env",),
    ),
    T(
        "req-limit",
        "store",
        "fact",
        "Request size limit",
        "Request bodies over 2 MB are rejected by the gateway.",
        queries=("req gateway",),
    ),
    # literal: a rare fragment of a hyphenated name must not beat the word the query means
    T(
        "environment-vars",
        "store",
        "decision",
        "Environment variables are documented",
        "Every environment variable a service reads is listed in its README with a default.",
        queries=("env",),
    ),
    T(
        "repository-template",
        "store",
        "fact",
        "New repositories come from the template",
        "Every repository is created from the service template and gets CODEOWNERS.",
        queries=("repo",),
    ),
    # rationale: reasons and tags are searchable and do not cost a decision its rank
    T(
        "event-transport",
        "store",
        "decision",
        "Redis streams carry domain events",
        "Services publish domain events to Redis streams with consumer groups.",
        description="Event transport between services",
        queries=("event transport between services", "why not rabbitmq for events"),
        extra={
            "why": "replayable transport with consumer groups, without operating a Kafka "
            "cluster; the team already runs Redis",
            "rejected": "RabbitMQ (no replay), Kafka (too much to operate for our size)",
            "tags": ["messaging", "architecture"],
        },
    ),
    T(
        "event-transport-next",
        "store",
        "next_action",
        "Benchmark consumer lag",
        "Measure consumer lag under load.",
        description="Event transport between services",
        related=("event transport between services",),
    ),
    T(
        "flaky-lesson",
        "store",
        "lesson",
        "Quarantine flaky tests",
        "A test that fails twice without a code change moves to the quarantine suite.",
        queries=("quarantine suite",),
        extra={
            "trigger": "a test fails intermittently in CI",
            "how_to_apply": "tag it quarantine and open a ticket",
        },
    ),
    # project: a query naming a project reaches the documents that belong to it
    T(
        "webshop-payments",
        "claude:webshop",
        "fact",
        "Payment intents",
        "Checkout confirms Stripe payment intents on the server, never in the browser.",
        queries=("webshop checkout",),
    ),
    T(
        "api-pagination",
        "cursor:api",
        "rules",
        "pagination",
        "List endpoints paginate with opaque cursors, fifty items per page.",
        queries=("api endpoints paginate",),
    ),
)

# A hyphenated-name literal for each ``literal`` query: holds the query word exactly.
LITERAL_DISTRACTORS: tuple[tuple[str, str, str], ...] = (
    ("store", "Laptop sync", "The ops-env-sync script copies dotfiles between laptops."),
    ("store", "Mirror job", "The tools-repo-mirror cron pulls upstream nightly."),
)

# session: history summaries are searchable ("session:<summary>" names the document)
HISTORY: tuple[tuple[str, str], ...] = (
    (
        "Pinned the Safari simulator version so the service worker suite stops flaking",
        "what did we do about the safari simulator",
    ),
    (
        "Moved invoice PDFs to object storage and removed the local disk cache",
        "invoice pdf object storage",
    ),
)

CLASSES: dict[str, str] = {
    "named exports typescript": "source",
    "default exports": "source",
    "imperative commit subjects": "source",
    "pod": "stem",
    "cron job": "stem",
    "production bug": "stem",
    "ci run": "stem",
    "log": "stem",
    "signing key": "stem",
    "dep": "prefix3",
    "req gateway": "prefix3",
    "env bootstrap laptop": "prefix3",
    "env": "literal",
    "repo": "literal",
    "event transport between services": "rationale",
    "why not rabbitmq for events": "rationale",
    "quarantine suite": "rationale",
    "webshop checkout": "project",
    "api endpoints paginate": "project",
    **{q: "session" for _, q in HISTORY},
}

# Issue 27's query classes, written before the fixes they test (``CLASSES27`` names each
# query's class). Claude Code's ``MEMORY.md`` index is written for every project folder
# (see ``build``), as Claude Code keeps it: one line per memory, title and hook.
ISSUE27: tuple[Target, ...] = (
    # index: a Claude Code memory whose words its folder's MEMORY.md repeats
    T(
        "feature-flags",
        "claude:webshop",
        "fact",
        "Feature flags live in Unleash",
        "New checkout features ship dark behind an Unleash toggle; flags older than 90 days "
        "are deleted.",
        description="Where feature toggles are configured",
        queries=("unleash toggle", "feature toggles checkout"),
    ),
    T(
        "n-plus-one",
        "claude:api",
        "lesson",
        "N+1 queries in the orders endpoint",
        "The orders endpoint issued one query per line item; eager-load line items with "
        "selectinload.",
        description="Eager loading for list endpoints",
        queries=("selectinload eager loading", "orders endpoint query per line item"),
    ),
    T(
        "cors",
        "claude:api",
        "decision",
        "CORS allow-list",
        "Only the webshop and admin origins are allowed; credentials are never sent to "
        "wildcard origins.",
        description="Cross-origin policy for the public API",
        queries=("cors origins allowed", "cross-origin credentials"),
    ),
    # project: a query naming a project and a subject; the subject decides within it
    T(
        "webshop-search",
        "claude:webshop",
        "fact",
        "Product search uses Meilisearch",
        "Product search is served by Meilisearch; the index is rebuilt from the catalogue "
        "every hour.",
        queries=("webshop product search", "webshop meilisearch"),
    ),
    T(
        "api-timeouts",
        "claude:api",
        "fact",
        "Upstream timeouts",
        "Calls to upstream services time out after 3 seconds with two retries and jitter.",
        queries=("api upstream timeouts",),
    ),
    T(
        "webshop-images",
        "claude:webshop",
        "decision",
        "Product images are resized on upload",
        "Uploads are resized to three widths by the image pipeline and stored as WebP.",
        queries=("webshop image resizing",),
    ),
    # why: a "why" question prefers the decision over notes that mention the subject
    T(
        "why-monorepo",
        "store",
        "decision",
        "One repository for web and mobile",
        "Web and mobile clients share one repository so that API types are generated once.",
        extra={"why": "shared generated API types; one pull request per feature"},
        queries=("why did we put web and mobile in one repository",),
    ),
    T(
        "monorepo-note",
        "store",
        "fact",
        "Repository layout for web and mobile",
        "The web and mobile folders sit at the root of the repository; generated API types "
        "live in packages/api-types.",
        related=("why did we put web and mobile in one repository",),
    ),
    T(
        "why-uuid",
        "store",
        "decision",
        "UUIDv7 primary keys",
        "New tables use UUIDv7 primary keys instead of serial integers.",
        extra={"why": "sortable by time and safe to generate on clients", "rejected": "serial"},
        queries=("why uuid primary keys",),
    ),
    T(
        "uuid-howto",
        "store",
        "fact",
        "Generating UUIDs in tests",
        "Tests generate UUID primary keys with the uuid7 helper in tests/factories.",
        related=("why uuid primary keys",),
    ),
    T(
        "why-celery",
        "claude:api",
        "decision",
        "Background jobs use Dramatiq, not Celery",
        "Background jobs run on Dramatiq with Redis as the broker.",
        extra={"why": "Celery's prefetch behaviour lost jobs on worker restarts"},
        queries=("why not celery for background jobs",),
    ),
    T(
        "celery-note",
        "claude:api",
        "fact",
        "Background jobs dashboard",
        "Background jobs can be inspected in the Dramatiq dashboard; Celery's flower is gone.",
        related=("why not celery for background jobs",),
    ),
    # proximity: the query's words stand together in the answer, apart in others
    T(
        "connection-pool",
        "store",
        "fact",
        "Database connection pool size",
        "PgBouncer runs in transaction mode; the connection pool holds 20 connections per service.",
        queries=("connection pool size",),
    ),
    T(
        "pool-apart",
        "store",
        "fact",
        "Worker pool sizing",
        "The worker pool has a fixed size of 8. Each worker opens its own database "
        "connection at start-up.",
    ),
    T(
        "dead-letter",
        "claude:api",
        "fact",
        "Dead letter queue",
        "Messages that fail five times go to the dead letter queue and alert the on-call.",
        queries=("dead letter queue",),
    ),
    T(
        "letter-apart",
        "claude:api",
        "fact",
        "Welcome letter emails",
        "The welcome letter is queued after sign-up. Dead accounts are removed after a year.",
    ),
    # compound: camelCase names and joined words meet their parts
    T(
        "use-auth-token",
        "claude:webshop",
        "fact",
        "The useAuthToken hook",
        "Components read the session through useAuthToken; it refreshes the token before expiry.",
        queries=("auth token hook", "useauthtoken"),
    ),
    T(
        "ratelimiter",
        "claude:api",
        "fact",
        "RateLimiter class",
        "The RateLimiter middleware class reads its buckets from Redis.",
        queries=("rate limiter class", "ratelimiter"),
    ),
    T(
        "healthcheck",
        "windsurf:api",
        "rules",
        "healthchecks",
        "Every service exposes a healthcheck endpoint that checks its database and cache.",
        queries=("health check endpoint",),
        related=("healthcheck probe",),
    ),
    T(
        "lockfile",
        "store",
        "preference",
        "Commit the lock file",
        "The lock file is committed; CI installs with a frozen lock file.",
        queries=("lockfile frozen", "lockfile"),
    ),
    # nearform: a noun and its plural or a near form with a different ending
    T(
        "indices",
        "store",
        "lesson",
        "Partial indices on soft-deleted rows",
        "Partial indices that skip soft-deleted rows halved the orders table's index size.",
        queries=("partial index",),
    ),
    T(
        "deployment",
        "store",
        "fact",
        "Deployment windows",
        "Deployments happen between 10:00 and 16:00 on weekdays.",
        queries=("deploy window",),
    ),
    T(
        "validation",
        "claude:api",
        "preference",
        "Validation at the edge",
        "Request payload validation happens in pydantic models at the route, never deeper.",
        queries=("validate request payloads",),
    ),
    T(
        "authorization",
        "claude:api",
        "decision",
        "Authorization with scopes",
        "Authorization checks OAuth scopes on every route; roles map onto scopes.",
        queries=("authorize routes scopes",),
    ),
    # tag: a tag names what the entry is about, with no other field saying it
    T(
        "tag-observability",
        "store",
        "decision",
        "Sentry for frontend errors",
        "Frontend exceptions go to Sentry with release tags and source maps.",
        extra={"tags": ["observability", "frontend"]},
        queries=("observability frontend",),
    ),
    T(
        "tag-compliance",
        "store",
        "lesson",
        "Customer data stays in the EU",
        "Every new vendor is checked for EU data residency before a contract.",
        extra={"tags": ["gdpr", "compliance"]},
        queries=("gdpr", "compliance vendors"),
    ),
    # harder cases of the same classes (still written before the fixes)
    T(
        "webshop-arch",
        "store",
        "fact",
        "Webshop architecture",
        "The webshop is a Next.js storefront that talks to the API through a thin BFF.",
        queries=("webshop architecture", "webshop"),
    ),
    T(
        "why-dramatiq",
        "claude:api",
        "decision",
        "Task queue choice",
        "Background work moved to Dramatiq.",
        extra={"why": "Celery's prefetch lost tasks on restarts", "rejected": "Celery, RQ"},
        queries=("why dramatiq",),
    ),
    T(
        "dramatiq-ops",
        "claude:api",
        "fact",
        "Dramatiq operations",
        "Dramatiq workers run three processes; the Dramatiq dashboard shows failed messages. "
        "Restart Dramatiq workers with the deploy script.",
        related=("why dramatiq",),
    ),
    T(
        "pgbouncer",
        "store",
        "fact",
        "PgBouncer settings",
        "PgBouncer runs in transaction mode. The connection pool size is 20 per service.",
        queries=("connection pool size",),
    ),
    T(
        "pool-apart-2",
        "store",
        "fact",
        "Connection retries and pool sizing",
        "Clients retry a refused connection three times. The thread pool of each worker "
        "has a fixed size.",
    ),
    T(
        "use-cart-totals",
        "claude:webshop",
        "fact",
        "useCartTotals",
        "Computes tax and shipping in the browser from the line items.",
        queries=("cart totals hook",),
    ),
    T(
        "rate-limiter-words",
        "claude:api",
        "fact",
        "Token bucket",
        "The rate limiter keeps one bucket per key in Redis and refills it every second.",
        queries=("ratelimiter",),
    ),
    T(
        "health-words",
        "cline:api",
        "rules",
        "probes",
        "Kubernetes probes call the health check route; it must answer within 200 ms.",
        queries=("healthcheck probe",),
    ),
    T(
        "lock-words",
        "store",
        "lesson",
        "Stale lock file",
        "A stale lock file pinned an old version of requests; regenerate it after upgrades.",
        queries=("lockfile",),
    ),
    T(
        "deploy-checklist",
        "store",
        "preference",
        "Before you deploy",
        "Check the migrations, the feature toggles and the error budget before you deploy.",
        queries=("deployment checklist",),
    ),
    T(
        "authorize-words",
        "claude:api",
        "lesson",
        "Routes must authorize",
        "A new route shipped without a scope check; every route must authorize its caller.",
        queries=("route authorization",),
    ),
    T(
        "matrices",
        "store",
        "fact",
        "Test matrices",
        "CI test matrices cover Python 3.11 to 3.13 on Linux and macOS.",
        queries=("test matrix python versions",),
    ),
    T(
        "tag-security",
        "store",
        "decision",
        "Dependabot alerts block merges",
        "A high severity Dependabot alert blocks merging until it is triaged.",
        extra={"tags": ["security", "supply-chain"]},
        queries=("security",),
    ),
    T(
        "security-passing",
        "store",
        "fact",
        "Quarterly planning notes",
        "Planning covered hiring, the roadmap, a security questionnaire from a customer, the "
        "office move, budgets for conferences and the next offsite.",
    ),
    # project, harder: a note elsewhere that names the project in its own words
    T(
        "webshop-fonts",
        "store",
        "fact",
        "Webshop fonts",
        "The webshop self-hosts its fonts; no third-party font CDN.",
        queries=("webshop fonts",),
    ),
    T(
        "api-owners",
        "store",
        "fact",
        "Who owns the API",
        "The platform team owns the api service; page them for outages.",
        queries=("api owners",),
    ),
    T(
        "webshop-copy",
        "windsurf:api",
        "rules",
        "marketing-copy",
        "Marketing copy for the webshop lives in the CMS, never in code.",
        queries=("webshop marketing copy",),
    ),
    # concept: a person's own words for what a note names otherwise (no shared word)
    T(
        "concept-oncall",
        "store",
        "fact",
        "Pager rotation",
        "PagerDuty rotates weekly on Mondays; the secondary covers holidays.",
        queries=("who gets woken up at night when production breaks",),
    ),
    T(
        "concept-cost",
        "store",
        "lesson",
        "Cloud bill spike",
        "NAT gateway traffic doubled the AWS invoice in March; route S3 through a VPC endpoint.",
        queries=("why did our hosting spend jump",),
    ),
    T(
        "concept-slow",
        "claude:webshop",
        "lesson",
        "Largest contentful paint",
        "The hero image delayed LCP by 1.8 s on 4G; preload it and serve AVIF.",
        queries=("the storefront feels sluggish on phones",),
    ),
)

CLASSES27: dict[str, str] = {
    "unleash toggle": "index",
    "feature toggles checkout": "index",
    "selectinload eager loading": "index",
    "orders endpoint query per line item": "index",
    "cors origins allowed": "index",
    "cross-origin credentials": "index",
    "webshop product search": "project",
    "webshop meilisearch": "project",
    "api upstream timeouts": "project",
    "webshop image resizing": "project",
    "why did we put web and mobile in one repository": "why",
    "why uuid primary keys": "why",
    "why not celery for background jobs": "why",
    "connection pool size": "proximity",
    "dead letter queue": "proximity",
    "auth token hook": "compound",
    "useauthtoken": "compound",
    "rate limiter class": "compound",
    "health check endpoint": "compound",
    "lockfile frozen": "compound",
    "partial index": "nearform",
    "deploy window": "nearform",
    "validate request payloads": "nearform",
    "authorize routes scopes": "nearform",
    "observability frontend": "tag",
    "gdpr": "tag",
    "compliance vendors": "tag",
    "webshop architecture": "project",
    "webshop": "project",
    "webshop fonts": "project",
    "api owners": "project",
    "webshop marketing copy": "project",
    "why dramatiq": "why",
    "cart totals hook": "compound",
    "ratelimiter": "compound",
    "healthcheck probe": "compound",
    "lockfile": "compound",
    "deployment checklist": "nearform",
    "route authorization": "nearform",
    "test matrix python versions": "nearform",
    "security": "tag",
    "who gets woken up at night when production breaks": "concept",
    "why did our hosting spend jump": "concept",
    "the storefront feels sluggish on phones": "concept",
}
CLASSES.update(CLASSES27)

# Issue 27, the project field (written before it changed): a query naming a project by its
# name and a subject its notes hold in other words, and notes elsewhere naming the project
# or the subject; then queries asked from inside a project (``HERE``: the project they are
# asked from, default scope), where the project's own note comes before a global one of
# equal words, but not before a better global match.
ISSUE27_PROJECT: tuple[Target, ...] = (
    T(
        "release-global",
        "store",
        "fact",
        "Release checklist",
        "Tag the release, write the changelog and announce it in the team channel.",
        related=("release checklist",),
        queries=("release checklist changelog",),
        extra={"updated": "2026-05-01"},
    ),
    T(
        "release-webshop",
        "claude:webshop",
        "fact",
        "Release checklist",
        "Tag the release, purge the storefront CDN and announce it in the team channel.",
        queries=("release checklist",),
        extra={"updated": "2026-04-01"},
    ),
    T(
        "approvals-global",
        "store",
        "preference",
        "Merge approvals",
        "Every change needs one approval before it is merged.",
        related=("approvals before merging",),
        extra={"updated": "2026-05-01"},
    ),
    T(
        "approvals-api",
        "claude:api",
        "preference",
        "Merge approvals",
        "Every change needs two approvals before it is merged.",
        queries=("approvals before merging",),
        extra={"updated": "2026-04-01"},
    ),
)
HERE: dict[str, str] = {
    "release checklist": "webshop",
    "release checklist changelog": "webshop",
    "approvals before merging": "api",
}
PROJECT_NAMED: dict[str, str] = {  # query → the target key that answers it
    "api migrations": "migrations",
    "webshop signing keys": "key-rotation",
    "api authentication middleware": "authmw",
    "webshop laptop setup": "env-setup",
    "webshop hero image": "concept-slow",
    "api token format": "jwt",
    "webshop origins": "cors",
}
CLASSES.update({q: "project" for q in PROJECT_NAMED})
CLASSES.update({q: "here" for q in HERE})

# Generated notes that share the targets' vocabulary without answering the queries.
_SUBJECTS = (
    "the orders service",
    "the checkout page",
    "the admin dashboard",
    "the billing worker",
    "the mobile app",
    "the search indexer",
    "the reporting job",
    "the email sender",
    "the API gateway",
    "the staging cluster",
    "the analytics export",
    "the image pipeline",
)
_TOPICS = (
    "database",
    "cache",
    "tests",
    "deploy",
    "migration",
    "queue",
    "token",
    "logging",
    "payments",
    "search",
    "review",
    "release",
    "backups",
    "alerts",
    "metrics",
    "docker",
    "pagination",
    "rounding",
    "translations",
    "webhooks",
    "latency",
    "dashboards",
    "connection pool",
    "retries",
    "timeouts",
    "feature",
    "config",
    "schema",
    "session",
)
_TEMPLATES = (
    "Meeting notes: {s} {topic} work was discussed; no decision yet, follow up next week.",
    "{S} had a {topic} incident last quarter; see the postmortem in the wiki.",
    "Reminder: {s} owns its {topic} settings; ask the team channel before changing them.",
    "Idea: revisit {topic} for {s} when the roadmap allows. Low priority.",
    "{S} mentions {topic} and {topic2} in its README; the README is out of date.",
    "Pairing log: looked at {topic} in {s}; nothing conclusive, {topic2} might matter.",
    "Ticket triage: {topic} bugs in {s} are labelled and assigned weekly.",
    "{S}: {topic} {topic2} {topic} — notes to self, unsorted.",
)


def distractors(n: int, seed: int = 7) -> list[tuple[str, str, str]]:
    """``n`` generated notes: (where, name, body)."""
    rng = random.Random(seed)
    wheres = ("store", "claude:api", "claude:webshop", "store", "windsurf:api", "cline:api")
    out: list[tuple[str, str, str]] = []
    for i in range(n):
        s = rng.choice(_SUBJECTS)
        topic, topic2 = rng.sample(_TOPICS, 2)
        lines = [
            rng.choice(_TEMPLATES).format(s=s, S=s[0].upper() + s[1:], topic=topic, topic2=topic2)
            for _ in range(rng.randint(1, 4))
        ]
        out.append((rng.choice(wheres), f"Note {i}: {topic} in {s}", "\n\n".join(lines)))
    return out


def _frontmatter(type_: str, name: str, description: str, aliases, extra: dict) -> str:
    lines = ["---", f"type: {type_}", f"name: {json.dumps(name)}"]
    if description:
        lines.append(f"description: {json.dumps(description)}")
    if aliases:
        lines.append("aliases:")
        lines += [f"  - {json.dumps(a)}" for a in aliases]
    for key, value in extra.items():
        lines.append(f"{key}: {json.dumps(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


@dataclass
class Corpus:
    home: Path
    store: Path
    projects: dict[str, Path]
    paths: dict[str, str]  # target key → file path
    judgements: dict[str, dict[str, int]]  # query → {path: grade}
    files: int


def _place(root: Path, where: str, slug: str, projects: dict[str, Path]) -> tuple[Path, bool]:
    """The file a memory lands in for ``where``; bool: it takes entry frontmatter."""
    home = root / "home"
    tool, _, project = where.partition(":")
    if tool == "store":
        return home / ".config" / "memoir" / "memory" / f"{slug}.md", True
    if tool == "claude":
        return home / ".claude" / "projects" / f"-work-{project}" / "memory" / f"{slug}.md", True
    p = projects.get(project)
    if tool == "cursor":
        return p / ".cursor" / "rules" / f"{slug}.mdc", False
    if tool == "windsurf":
        return p / ".windsurf" / "rules" / f"{slug}.md", False
    if tool == "cline":
        return p / ".clinerules" / f"{slug}.md", False
    if tool == "copilot":
        return p / ".github" / "instructions" / f"{slug}.instructions.md", False
    if tool == "zed":
        return p / ".rules", False
    if tool == "aider":
        return p / "CONVENTIONS.md", False
    if tool == "agents":
        return p / "AGENTS.md", False
    if tool == "claude-global":
        return home / ".claude" / "CLAUDE.md", False
    if tool == "gemini-global":
        return home / ".gemini" / "GEMINI.md", False
    if tool == "codex-global":
        return home / ".codex" / "AGENTS.md", False
    if tool == "cursor-global":
        return home / ".config" / "Cursor" / "User" / "rules" / f"{slug}.md", False
    if tool == "continue-global":
        return home / ".continue" / "rules" / f"{slug}.md", False
    raise ValueError(where)


def build(root: Path, n_distractors: int = 260) -> Corpus:
    home = root / "home"
    store = home / ".config" / "memoir"
    projects = {"api": root / "src" / "api", "webshop": root / "src" / "webshop"}
    for name, path in projects.items():
        path.mkdir(parents=True, exist_ok=True)
        slug_dir = home / ".claude" / "projects" / f"-work-{name}"
        slug_dir.mkdir(parents=True, exist_ok=True)
        (slug_dir / "s.jsonl").write_text(json.dumps({"type": "user", "cwd": str(path)}) + "\n")
    (store / "memory").mkdir(parents=True, exist_ok=True)
    paths: dict[str, str] = {}
    judgements: dict[str, dict[str, int]] = {}
    files = 0
    for t in (*TARGETS, *ISSUE15, *ISSUE27, *ISSUE27_PROJECT):
        slug = (
            f"{t.type}_{t.key}"
            if t.type in ("fact", "decision", "lesson", "preference", "goal", "next_action")
            else t.key
        )
        path, typed = _place(root, t.where, slug, projects)
        path.parent.mkdir(parents=True, exist_ok=True)
        if typed:
            text = _frontmatter(t.type, t.name, t.description, t.aliases, t.extra) + t.body + "\n"
        elif path.suffix == ".mdc" or t.description or t.aliases:
            fm = ["---"]
            if t.description:
                fm.append(f"description: {json.dumps(t.description)}")
            if t.aliases:
                fm.append("aliases:")
                fm += [f"  - {json.dumps(a)}" for a in t.aliases]
            fm.append("alwaysApply: false" if path.suffix == ".mdc" else "trigger: always_on")
            text = "\n".join([*fm, "---", f"# {t.name}", "", t.body, ""])
        else:
            text = f"# {t.name}\n\n{t.body}\n"
        path.write_text(text, encoding="utf-8")
        files += 1
        paths[t.key] = str(path)
        for q in t.queries:
            judgements.setdefault(q, {})[str(path)] = 2
    for t in (*TARGETS, *ISSUE15, *ISSUE27, *ISSUE27_PROJECT):
        for q in t.related:
            judgements.setdefault(q, {}).setdefault(paths[t.key], 1)
    for q, key in PROJECT_NAMED.items():
        judgements.setdefault(q, {})[paths[key]] = 2
    for i, (where, name, body) in enumerate(distractors(n_distractors)):
        path, typed = _place(root, where, f"fact_note-{i:04d}", projects)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = (_frontmatter("fact", name, "", (), {}) if typed else f"# {name}\n\n") + body + "\n"
        path.write_text(text, encoding="utf-8")
        files += 1
    for i, (where, name, body) in enumerate(LITERAL_DISTRACTORS):
        path, _typed = _place(root, where, f"fact_literal-{i}", projects)
        path.write_text(_frontmatter("fact", name, "", (), {}) + body + "\n", encoding="utf-8")
        files += 1
    for name in projects:
        _write_memory_index(home / ".claude" / "projects" / f"-work-{name}" / "memory")
    history = [
        {"date": f"2026-05-0{i + 1}T10:00:00.000Z", "summary": summary, "files_touched": []}
        for i, (summary, _query) in enumerate(HISTORY)
    ]
    session = {
        "version": 1,
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-05-03T00:00:00.000Z",
        "machines": {},
        "current": {
            "goals": [],
            "next_actions": [],
            "completed_actions": [],
            "open_questions": [],
            "decisions": [],
        },
        "history": history,
    }
    (store / "session.json").write_text(json.dumps(session), encoding="utf-8")
    for summary, query in HISTORY:
        judgements.setdefault(query, {})[session_key(summary)] = 2
    return Corpus(home, store, projects, paths, judgements, files)


def _write_memory_index(folder: Path) -> None:
    """Claude Code's ``MEMORY.md`` for ``folder``: a line per memory, its title and hook."""
    lines = ["# Memory index", ""]
    for path in sorted(folder.glob("*.md")):
        if path.name == "MEMORY.md":
            continue
        text = path.read_text(encoding="utf-8")
        name = description = ""
        for line in text.splitlines()[1:]:
            if line == "---":
                break
            if line.startswith("name: "):
                name = json.loads(line[6:])
            elif line.startswith("description: "):
                description = json.loads(line[13:])
        hook = description or text.split("---", 2)[-1].strip().splitlines()[0][:90]
        lines.append(f"- [{name or path.stem}]({path.name}) — {hook}")
    (folder / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def session_key(name: str) -> str:
    """How the evaluation names a document of the session file (they share its path)."""
    return f"session:{name}"
