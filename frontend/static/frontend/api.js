// The public API client: JSON over fetch with the session cookie and CSRF token, and WebSocket URLs.
// The server words its errors (`detail`) in the page's language; the client's own in t().
import { retryAfterOf, retryDelay, sleep } from "./backoff.js";
import { t } from "./i18n.js";

/** How many times apiPatient() sends a request again after a 503 before it gives up. */
export const BUSY_RETRIES = 3;

export class ApiError extends Error {
  constructor(status, body, retryAfter = null) {
    const detail = (body && body.detail) || t("The server answered {status}.", { status });
    super(detail);
    this.status = status;
    this.code = (body && body.error) || "error";
    this.detail = detail;
    this.body = body || {};
    // Seconds the server asked to wait (`retry_after`, else the Retry-After header), or null.
    this.retryAfter = retryAfterOf(body) ?? retryAfter;
  }
}

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

async function csrfToken() {
  let token = cookie("csrftoken");
  if (token) return token;
  try {
    const response = await fetch("/api/auth/csrf/", { credentials: "same-origin" });
    const body = await response.json();
    token = cookie("csrftoken") || body.csrf_token || null;
  } catch {
    token = null;
  }
  return token;
}

/** Call the API; resolve with the JSON body, reject with an ApiError carrying `code` and `detail`. */
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET") {
    const token = await csrfToken();
    if (token) headers["X-CSRFToken"] = token;
  }
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, { error: "network", detail: t("The server cannot be reached.") });
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) throw new ApiError(response.status, data, retryAfterHeader(response));
  return data;
}

function retryAfterHeader(response) {
  const value = Number(response.headers.get("Retry-After") ?? "");
  return response.headers.has("Retry-After") && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * Call the API like api(), sending the request again while the server answers 503 (busy, or its
 * database away): after each refusal wait retryDelay() — retry_after × (1 + random) — at most
 * `retries` times, then reject with the last refusal. `onWait(ms)` hears of each wait before it.
 */
export async function apiPatient(method, path, body, { retries = BUSY_RETRIES, onWait = () => {} } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await api(method, path, body);
    } catch (error) {
      if (error.status !== 503 || attempt > retries) throw error;
      const ms = retryDelay(attempt, error.retryAfter);
      onWait(ms);
      await sleep(ms);
    }
  }
}

/** Return the ws:// or wss:// URL of a path on this host. */
export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${path}`;
}
