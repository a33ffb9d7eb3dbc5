/**
 * The one contract between the transport-neutral session layer and a transport (iSCSI/TCP, iSER): what the session
 * asks of a connection's transport ({@link io.numaiscsi.proto.transport.IscsiTransport}), what the transport reports
 * ({@link io.numaiscsi.proto.transport.TransportEvents}), a command's data as both see it
 * ({@link io.numaiscsi.proto.transport.DataInTask}, {@link io.numaiscsi.proto.transport.DataOutTask}), and the thread
 * that owns a connection ({@link io.numaiscsi.proto.transport.ConnectionExecutor}).
 */
package io.numaiscsi.proto.transport;
