package president;

/** A stream that failed before its end: its gRPC error, or none when the server closed it without a status. */
final class StreamLost extends Exception {
    private static final long serialVersionUID = 1L;

    StreamLost(Throwable error) {
        super(error == null ? "the server ended the stream" : Reconnection.describe(error), error);
    }
}
