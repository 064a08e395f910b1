/**
 * Limits at the door: rules per route ({@link dev.sluice.http.IngressRule}) keyed by the real client address
 * ({@link dev.sluice.http.ClientAddressResolver}, which trusts forwarding headers only from configured proxies),
 * a header, the principal or any function of the request, decided by {@link dev.sluice.http.IngressLimiter}
 * with the IETF RateLimit fields, framework-neutral; {@link dev.sluice.http.servlet} applies them as a servlet
 * filter.
 */
package dev.sluice.http;
