package president;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.function.BiFunction;
import president.v1.President.Act;

/** One stream to the server: a Play stream, or a Session carrying every match. */
final class Connection<R> {
    final int number;
    private final StreamObserver<R> requests;
    private final BiFunction<String, Act, R> wrap; // an act of a match as this stream's request

    Connection(int number, StreamObserver<R> requests, BiFunction<String, Act, R> wrap) {
        this.number = number;
        this.requests = requests;
        this.wrap = wrap;
    }

    /** Writes a request; gRPC takes one at a time. False when the stream is gone. */
    synchronized boolean send(R request) {
        try {
            requests.onNext(request);
            return true;
        } catch (IllegalStateException gone) {
            return false;
        }
    }

    boolean act(String matchId, Act act) {
        return send(wrap.apply(matchId, act));
    }

    /** Says this client sends no more (after MatchOver). */
    synchronized void finish() {
        try {
            requests.onCompleted();
        } catch (IllegalStateException gone) {
            // the stream ended first: nothing more to say
        }
    }

    /** Ends the stream from this side, if it is not over already. */
    synchronized void cancel() {
        requests.onError(Status.CANCELLED.withDescription("the bot left the stream").asRuntimeException());
    }
}
