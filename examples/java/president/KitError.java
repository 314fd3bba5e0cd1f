package president;

/** Why a bot stopped playing, in one line for a person: a refused token, a server that is not there... */
public class KitError extends Exception {
    private static final long serialVersionUID = 1L;

    KitError(String message) {
        super(message);
    }
}
