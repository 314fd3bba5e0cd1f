package president;

/** A dev seat's token between two matches (DEV_SEAT_WAITING): --again asks again. */
final class DevSeatWaiting extends KitError {
    private static final long serialVersionUID = 1L;

    DevSeatWaiting(String message) {
        super(message);
    }
}
