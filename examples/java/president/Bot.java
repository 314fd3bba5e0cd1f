package president;

import president.v1.President.Action;

/**
 * A bot chooses one action for each of its turns. The kit plays it on a server over the president.v1 gRPC contract:
 * one seat on the Play stream, or every match of an account at once on a Session.
 */
@FunctionalInterface
public interface Bot {
    /**
     * Returns one of {@code turn.legal()}. If it has not returned shortly before the turn's deadline, the kit sends
     * {@code turn.legal().get(0)} (always legal) instead. Calls are never concurrent, even over a Session.
     */
    Action choose(Turn turn);
}
