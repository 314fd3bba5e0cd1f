package president;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** A stream's messages, read one at a time by the thread that plays it: gRPC delivers them on its own threads. */
final class Inbox<T> implements StreamObserver<T> {
    private record Failed(Throwable error) { } // error null: the server closed the stream without a status

    private final Class<T> type;
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();

    Inbox(Class<T> type) {
        this.type = type;
    }

    @Override
    public void onNext(T message) {
        queue.add(message);
    }

    @Override
    public void onError(Throwable error) {
        queue.add(new Failed(error));
    }

    @Override
    public void onCompleted() {
        queue.add(new Failed(null));
    }

    /** Ends the reading: a stop. */
    void interrupt() {
        onError(Status.CANCELLED.withDescription("stopped").asRuntimeException());
    }

    /** The next message; StreamLost when the stream failed or ended. */
    T next() throws StreamLost {
        Object item;
        try {
            item = queue.take();
        } catch (InterruptedException e) {
            throw new StreamLost(Status.CANCELLED.withDescription("interrupted").asRuntimeException());
        }
        if (item instanceof Failed failed) {
            throw new StreamLost(failed.error());
        }
        return type.cast(item);
    }
}
