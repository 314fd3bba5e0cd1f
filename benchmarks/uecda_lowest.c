/* A UECda contest client in C for benchmarks/uecda_bench.py, written from shared/UECDA.md sections 1-3 alone:
 * the contest's clients are C programs, so a bridge's time a game is measured with clients that cost next to
 * nothing.  It plays singles only: it leads its lowest card and follows with the lowest card that beats the
 * table's single (a lone joker when nothing else does), else passes; it gives back its lowest cards.  A play
 * the rules refuse (a suit lock, a revolution) is a pass, as for any client.
 *
 *     cc -O2 -o uecda_lowest benchmarks/uecda_lowest.c && ./uecda_lowest HOST PORT NAME
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ROWS 8
#define COLS 15
#define CELLS (ROWS * COLS)

static int sock;

static void read_all(void *buf, size_t size) {
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(sock, (char *)buf + got, size - got);
        if (n <= 0) exit(got == 0 && size == 4 ? 0 : 3);
        got += (size_t)n;
    }
}

static void read_table(int t[ROWS][COLS]) {
    uint32_t raw[CELLS];
    read_all(raw, sizeof raw);
    for (int i = 0; i < CELLS; i++) t[i / COLS][i % COLS] = (int)ntohl(raw[i]);
}

static int read_int(void) {
    uint32_t raw;
    read_all(&raw, 4);
    return (int)ntohl(raw);
}

static void send_table(int t[ROWS][COLS]) {
    uint32_t raw[CELLS];
    for (int i = 0; i < CELLS; i++) raw[i] = htonl((uint32_t)t[i / COLS][i % COLS]);
    if (write(sock, raw, sizeof raw) != (ssize_t)sizeof raw) exit(4);
}

/* The weakest natural card of the hand that beats `floor` (a column, 0 or 14 for none: the table is empty), in
 * the normal order or in a revolution, of row `suit` only when a suit lock holds it (-1: any row): its cell in
 * *row, *col; 0 when there is none. */
static int weakest_above(int hand[ROWS][COLS], int floor, int revolution, int suit, int *row, int *col) {
    for (int step = 1; step <= 13; step++) {
        int c = revolution ? 14 - step : step;
        if (revolution ? c >= floor : c <= floor) continue;
        for (int r = 0; r < 4; r++)
            if (hand[r][c] == 1 && (suit < 0 || suit == r)) { *row = r; *col = c; return 1; }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s HOST PORT NAME\n", argv[0]); return 2; }
    struct sockaddr_in at = {0};
    at.sin_family = AF_INET;
    at.sin_port = htons((uint16_t)atoi(argv[2]));
    if (inet_pton(AF_INET, argv[1], &at.sin_addr) != 1) return 2;
    sock = socket(AF_INET, SOCK_STREAM, 0);
    if (sock < 0 || connect(sock, (struct sockaddr *)&at, sizeof at) != 0) { perror("connect"); return 1; }
    int one = 1;
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int table[ROWS][COLS] = {{0}};
    table[0][0] = 20070;
    for (int i = 0; argv[3][i] && i < COLS - 1; i++) table[1][i] = (unsigned char)argv[3][i];
    send_table(table);
    int me = read_int();
    for (;;) {
        int hand[ROWS][COLS], on[ROWS][COLS] = {{0}};
        read_table(hand); /* the deal table */
        if (hand[5][1] > 0) {
            int give[ROWS][COLS] = {{0}}, left = hand[5][1], r, c;
            while (left > 0 && weakest_above(hand, 0, 0, -1, &r, &c)) { give[r][c] = 1; hand[r][c] = 0; left--; }
            send_table(give);
        }
        int flag = 0;
        while (flag == 0) {
            read_table(hand);
            if (hand[5][2] == 1 && hand[5][3] == me) {
                int play[ROWS][COLS] = {{0}}, r, c, count = 0, joker = 0, column = 0, suit = -1;
                int revolution = hand[5][6], empty = hand[5][4];
                for (int rr = 0; !empty && rr < 5; rr++)
                    for (int cc = 0; cc < COLS; cc++)
                        if (on[rr][cc]) { count++; joker |= on[rr][cc] == 2; column = cc; suit = rr; }
                int floor = empty ? (revolution ? 14 : 0) : column;
                int follows = count == 1 && !joker;
                if ((empty || follows) && weakest_above(hand, floor, revolution, !empty && hand[5][7] ? suit : -1,
                                                        &r, &c))
                    play[r][c] = 1;
                else if ((empty || follows) && hand[4][1] == 2)
                    play[0][14] = 2;
                send_table(play);
                read_int(); /* the ack */
            }
            read_table(on); /* the table after the move */
            flag = read_int();
        }
        if (flag == 2) break;
    }
    close(sock);
    return 0;
}
