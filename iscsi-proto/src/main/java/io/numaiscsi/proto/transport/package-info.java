/** The seam between the transport-neutral session layer and a transport that moves data itself (iSER). */
package io.numaiscsi.proto.transport;
