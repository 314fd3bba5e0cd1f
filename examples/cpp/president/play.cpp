// One seat on the Play stream, resumed after lost connections.
#include "president/kit.h"
#include "president/v1/president.grpc.pb.h"

namespace president {
namespace {

v1::PlayRequest PlayAct(const std::string&, const v1::Act& act) {
  v1::PlayRequest request;
  *request.mutable_act() = act;
  return request;
}

}  // namespace

std::shared_ptr<Seat> Runner::PlaySeat(const std::shared_ptr<grpc::Channel>& channel, const std::string& server,
                                       const std::string& token, const std::string& name) {
  auto stub = v1::PresidentService::NewStub(channel);
  PlayStream::Opener open = [&stub](grpc::ClientContext* context) { return stub->Play(context); };
  auto seat = std::make_shared<Seat>("");
  Reconnection rc(server, "seat");
  for (int number = 1;; ++number) {
    std::optional<grpc::Status> failed = PlayOnce(open, token, name, seat, number, rc);
    if (!failed) return seat;
    if (Stopped()) throw Error("stopped before the match was over");
    std::chrono::milliseconds wait = rc.After(*failed);
    uint64_t last_seq;
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_seq = seat->last_seq;
    }
    log_.Info(Cat(log_.Where(*seat), ": the connection was lost (", Describe(*failed), "); reconnecting in ",
                  Seconds(wait), " to resume after event ", last_seq));
    if (!Pause(wait)) throw Error("stopped before the match was over");
  }
}

std::optional<grpc::Status> Runner::PlayOnce(const PlayStream::Opener& open, const std::string& token,
                                             const std::string& name, const std::shared_ptr<Seat>& seat,
                                             int number, Reconnection& rc) {
  auto stream = std::make_shared<PlayStream>(number, token, open, PlayAct, log_);
  v1::PlayRequest hello;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hello.mutable_hello()->set_last_seq(seat->last_seq);
  }
  hello.mutable_hello()->set_name(name);
  SetConnection(stream);
  bool over = false;
  if (stream->Start(hello)) {
    v1::PlayResponse message;
    while (!over && stream->Read(&message)) {
      if (message.has_welcome()) {
        rc.Success();
        log_.Info(Cat("seated in match ", message.welcome().match_id(), " as player ", message.welcome().player(),
                      " of ", message.welcome().names_size()));
      }
      Handle(seat, stream, message);
      over = message.has_match_over();
    }
  }
  SetConnection(nullptr);
  if (over) stream->Cancel();  // the server ends the stream after MatchOver; nothing more is read
  grpc::Status status = stream->End();
  if (over) return std::nullopt;
  return status;
}

}  // namespace president
