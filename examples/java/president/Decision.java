package president;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import president.v1.President.Action;

/**
 * One turn's wait for the bot's answer, until the answer or shortly before the deadline (which a TurnDeadline
 * may set or move while the bot thinks).
 */
final class Decision {
    /** Kept back from a deadline for the answer to travel to the server. */
    static final Duration SAFETY_MARGIN = Duration.ofMillis(250);
    /** The least time a bot is given, even when the deadline is nearer. */
    static final Duration LEAST_BUDGET = Duration.ofMillis(50);

    /** What the bot returned, or what it threw. */
    record Answer(Action action, Throwable error) { }

    private long expiresAt; // System.nanoTime() when the wait gives up
    private boolean armed; // false: no deadline, wait for the bot
    private Answer answer;

    Decision(Instant deadline) {
        if (deadline != null) {
            move(deadline);
        }
    }

    /** Sets the deadline: the bot's time runs from now to SAFETY_MARGIN before it. */
    synchronized void move(Instant deadline) {
        Duration budget = Duration.between(Instant.now(), deadline).minus(SAFETY_MARGIN);
        expiresAt = System.nanoTime() + (budget.compareTo(LEAST_BUDGET) < 0 ? LEAST_BUDGET : budget).toNanos();
        armed = true;
        notifyAll();
    }

    synchronized void answered(Answer answer) {
        this.answer = answer;
        notifyAll();
    }

    /** The bot's answer, or empty when its time ran out first. */
    synchronized Optional<Answer> await() {
        try {
            while (answer == null) {
                if (!armed) {
                    wait();
                    continue;
                }
                long left = expiresAt - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            return Optional.empty(); // the kit is stopping: answer for the bot at once
        }
        return Optional.of(answer);
    }
}
