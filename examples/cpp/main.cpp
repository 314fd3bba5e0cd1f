// The example bot's command:
//
//   ./bot --server HOST:PORT --token SEAT_TOKEN              one seat, until its match is over
//   ./bot --server HOST:PORT --token DEV_SEAT_TOKEN --again  a dev seat: its match, then each next one
//   ./bot --server HOST:PORT --account-token ACCOUNT_TOKEN   every match of an account, many at once
#include "president/president.h"

president::Action Choose(const president::Turn& turn);

int main(int argc, char** argv) { president::Main(argc, argv, Choose); }
