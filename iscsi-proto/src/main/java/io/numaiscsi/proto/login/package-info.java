/**
 * iSCSI login and text negotiation (RFC 7143 6, 11.10-11.13, 12, 13; RFC 7145 6), on plain values: no PDUs, I/O,
 * threads or clocks. The daemon decodes a Login Request into a {@link io.numaiscsi.proto.login.LoginRequest}, feeds
 * {@link io.numaiscsi.proto.login.LoginStateMachine#onRequest} and sends the returned
 * {@link io.numaiscsi.proto.login.LoginStep}; after DONE it takes the
 * {@link io.numaiscsi.proto.login.SessionParameters} and answers full-feature Text Requests through a
 * {@link io.numaiscsi.proto.login.TextExchange}.
 *
 * <p>Keys are data ({@link io.numaiscsi.proto.login.TextKey}); the result functions are pure ({@code KeyRules});
 * the per-login key state ({@code Negotiation}) answers offers, records declarations and makes the target's own
 * offers when a default would break the target's limits, declining the transit (T=0) until they are answered.
 * Authentication plugs in as {@link io.numaiscsi.proto.login.Authenticator}s chosen per login by an
 * {@link io.numaiscsi.proto.login.AuthPolicy} (AuthMethod=None built in, CHAP in
 * {@link io.numaiscsi.proto.login.ChapAuthenticator}).
 */
package io.numaiscsi.proto.login;
