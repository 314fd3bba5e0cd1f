// The example bot's command:
//
//	./bot --server HOST:PORT --token SEAT_TOKEN              one seat, until its match is over
//	./bot --server HOST:PORT --token DEV_SEAT_TOKEN --again  a dev seat: its match, then each next one
//	./bot --server HOST:PORT --account-token ACCOUNT_TOKEN   every match of an account, many at once
package main

import "president"

func main() {
	president.Main(president.BotFunc(Choose))
}
