package president;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Ctrl-C or SIGTERM: the stream being read ends, a wait before reconnecting ends, and the bot says what it did. */
final class Stop {
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Runnable interrupt = () -> { };

    void stop() {
        stopped.countDown();
        interrupt.run();
    }

    boolean stopped() {
        return stopped.getCount() == 0;
    }

    /** Waits {@code wait}; true when a stop came first. */
    boolean sleep(Duration wait) {
        try {
            return stopped.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            return true;
        }
    }

    /** Makes {@code interrupt} what a stop does to the stream being read (run at once when stopped already). */
    void interrupting(Runnable interrupt) {
        this.interrupt = interrupt;
        if (stopped()) {
            interrupt.run();
        }
    }
}
