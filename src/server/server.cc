#include "mongostore/server/server.h"

#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <asio.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/ssl.hpp>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/server/command_dispatcher.h"
#include "mongostore/server/wire_protocol.h"
#include "server/auth/auth_session.h"
#include "server/message_compression.h"
#include "server/network_commands.h"

namespace mongostore::server {

using asio::ip::tcp;

namespace {

size_t worker_count(const ServerOptions& options) {
  if (options.workers > 0) return options.workers;
  return std::max<size_t>(16, 8 * std::max(1u, std::thread::hardware_concurrency()));
}

DispatcherOptions dispatcher_options(const ServerOptions& options) {
  DispatcherOptions out;
  out.cursor_idle_timeout = options.cursor_idle_timeout;
  out.cursor_memory_limit = options.cursor_memory_limit;
  out.slow_operation = options.slow_operation;
  out.command_line = options.command_line;
  out.parsed_options = options.parsed_options;
  out.auth_required = options.auth;
  out.standalone = options.standalone;
  out.replica_set_name = options.replica_set_name;
  out.advertise = options.advertise;
  out.session_timeout = options.session_timeout;
  out.transaction_lifetime_limit = options.transaction_lifetime_limit;
  out.enable_test_commands = options.enable_test_commands;
  if (options.log) {
    out.security_log = [](const std::string& line) {
      fmt::print(stderr, "mongostore serve: {}\n", line);
      std::fflush(stderr);
    };
  }
  return out;
}

// Counts a connection as holding an awaitable hello for as long as it lives: across the
// coroutine's wait, and undone however the wait ends (timer, cancellation, exception).
class AwaitingTopologyChange {
 public:
  explicit AwaitingTopologyChange(std::atomic<int64_t>& count) : count_(count) { ++count_; }
  ~AwaitingTopologyChange() { --count_; }
  AwaitingTopologyChange(const AwaitingTopologyChange&) = delete;
  AwaitingTopologyChange& operator=(const AwaitingTopologyChange&) = delete;

 private:
  std::atomic<int64_t>& count_;
};

}  // namespace

class Server::Impl {
 public:
  Impl(std::shared_ptr<engine::Engine> engine, ServerOptions options)
      : options_(std::move(options)),
        dispatcher_(std::move(engine), dispatcher_options(options_)),
        workers_(worker_count(options_)),
        acceptor_(io_) {}

  ~Impl() { stop(); }

  void start() {
    if (options_.tls_mode != TlsMode::kDisabled) tls_context_.emplace(make_tls_context());
    try {
      tcp::endpoint endpoint(asio::ip::make_address(options_.bind), options_.port);
      acceptor_.open(endpoint.protocol());
      acceptor_.set_option(tcp::acceptor::reuse_address(true));
      acceptor_.bind(endpoint);
      acceptor_.listen();
    } catch (const std::exception& e) {
      throw Error(ErrorCode::kHostUnreachable, fmt::format("cannot listen on {}:{}: {}",
                                                           options_.bind, options_.port, e.what()));
    }
    port_ = acceptor_.local_endpoint().port();
    dispatcher_.set_advertised_address(advertised_address());
    log("listening on {}:{}", options_.bind, port_);
    asio::co_spawn(io_, accept_loop(), asio::detached);
    for (size_t i = 0; i < std::max<size_t>(1, options_.threads); ++i) {
      threads_.emplace_back([this] { io_.run(); });
    }
  }

  uint16_t port() const { return port_; }

  size_t sessions() const { return dispatcher_.sessions(); }

  void stop() {
    std::lock_guard lock(stop_mutex_);
    if (stopped_) return;
    stopped_ = true;
    // Drain: no new connections; a connection waiting for its next message is closed now; one
    // in the middle of a message or a command finishes it, sends the reply, then closes (its
    // loop sees draining_). After drain_timeout whatever is left is cut off.
    draining_ = true;
    asio::post(io_, [this] {
      asio::error_code ignored;
      acceptor_.close(ignored);
    });
    {
      std::lock_guard connections_lock(connections_mutex_);
      for (const std::weak_ptr<Connection>& weak : connections_) {
        std::shared_ptr<Connection> c = weak.lock();
        if (!c) continue;
        asio::post(c->strand, [c] {
          c->hello_wait.cancel();  // an awaitable hello is answered at once
          if (c->busy || c->closed) return;
          // Bytes already received but not yet read are a message that has begun: it is
          // finished like the others. Only the wait is cancelled (no shutdown): a read that
          // completed just before this runs goes on to serve its message, and the loop then
          // stops on draining_.
          asio::error_code ec;
          if (c->socket.available(ec) > 0 && !ec) return;
          c->socket.cancel(ec);
        });
      }
    }
    auto deadline = std::chrono::steady_clock::now() + options_.drain_timeout;
    while (open_connections_.load() > 0 && std::chrono::steady_clock::now() < deadline &&
           !threads_.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (open_connections_.load() > 0) {
      log("drain timeout ({} ms): closing {} connections mid-command",
          options_.drain_timeout.count(), open_connections_.load());
    }
    io_.stop();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    // A command still running after the drain timeout finishes here; its reply goes nowhere.
    workers_.join();
    if (port_ != 0) log("stopped");
  }

 private:
  template <class... Args>
  void log(fmt::format_string<Args...> format, Args&&... args) {
    if (!options_.log) return;
    std::string line = fmt::format(format, std::forward<Args>(args)...);
    std::lock_guard lock(log_mutex_);
    fmt::print(stderr, "mongostore serve: {}\n", line);
    std::fflush(stderr);
  }

  // What hello names as the set's one host: --advertise, else the bound address (the host
  // name when bound to every interface, as mongod names itself) and the bound port.
  std::string advertised_address() const {
    if (!options_.advertise.empty()) return options_.advertise;
    std::string host = options_.bind;
    if (host == "0.0.0.0" || host == "::") {
      char name[256] = {};
      host = gethostname(name, sizeof name - 1) == 0 ? std::string(name) : "localhost";
    } else if (host.find(':') != std::string::npos) {
      host = "[" + host + "]";  // an IPv6 literal
    }
    return host + ":" + std::to_string(port_);
  }

  asio::awaitable<void> accept_loop() {
    while (acceptor_.is_open()) {
      auto [ec, socket] =
          co_await acceptor_.async_accept(asio::experimental::as_tuple(asio::use_awaitable));
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
        log("accept failed: {}", ec.message());
        continue;
      }
      int64_t id = ++next_connection_id_;
      std::string peer = peer_of(socket);
      if (open_connections_.load() >= options_.max_connections) {
        log("connection {} from {} refused: {} connections open (--max-connections)", id, peer,
            open_connections_.load());
        asio::error_code ignored;
        socket.close(ignored);
        continue;
      }
      ++open_connections_;
      log("connection {} open from {} ({} open)", id, peer, open_connections_.load());
      // The connection's reads, its watchdog and stop()'s drain share one strand, so they
      // never run at once.
      auto connection = std::make_shared<Connection>(std::move(socket), asio::make_strand(io_));
      {
        std::lock_guard lock(connections_mutex_);
        std::erase_if(connections_, [](const std::weak_ptr<Connection>& w) { return w.expired(); });
        connections_.push_back(connection);
      }
      asio::co_spawn(connection->strand, serve_connection(connection, id, peer), asio::detached);
      asio::co_spawn(connection->strand, enforce_message_timeout(connection), asio::detached);
    }
  }

  static std::string peer_of(const tcp::socket& socket) {
    asio::error_code ec;
    auto endpoint = socket.remote_endpoint(ec);
    if (ec) return "unknown";
    return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  }

  // What a connection's reading coroutine and its watchdog share.
  struct Connection {
    Connection(tcp::socket s, asio::strand<asio::io_context::executor_type> st)
        : socket(std::move(s)),
          strand(std::move(st)),
          watchdog(socket.get_executor()),
          hello_wait(socket.get_executor()) {}
    tcp::socket socket;
    /// Set once the connection's TLS handshake succeeded: every read and write goes through it.
    std::unique_ptr<asio::ssl::stream<tcp::socket&>> tls;
    asio::strand<asio::io_context::executor_type> strand;
    asio::steady_timer watchdog;
    /// Holds an awaitable hello's reply (its maxAwaitTimeMS); stop() cancels it.
    asio::steady_timer hello_wait;
    /// From a message's first byte until its reply is written: stop() lets it finish.
    bool busy = false;
    /// When the message being read began to arrive; empty between messages.
    std::optional<std::chrono::steady_clock::time_point> message_started;
    bool timed_out = false;
    bool closed = false;
  };

  // Wakes a few times per message_timeout and ends the connection when a message that
  // began arriving longer than message_timeout ago is still incomplete. Costs a message only a
  // clock read (no timer armed per message); the close comes within 1.25 x message_timeout.
  asio::awaitable<void> enforce_message_timeout(std::shared_ptr<Connection> c) {
    auto tick = std::max<std::chrono::steady_clock::duration>(options_.message_timeout / 4,
                                                              std::chrono::milliseconds(1));
    while (!c->closed) {
      c->watchdog.expires_after(tick);
      co_await c->watchdog.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
      if (c->closed) break;
      if (c->message_started &&
          std::chrono::steady_clock::now() - *c->message_started >= options_.message_timeout) {
        // Shut down rather than only cancel: a read that completed just now, and so escapes
        // the cancel, is followed by one that sees end-of-file.
        c->timed_out = true;
        asio::error_code ignored;
        c->socket.shutdown(tcp::socket::shutdown_both, ignored);
        c->socket.cancel(ignored);
        break;
      }
    }
  }

  asio::ssl::context make_tls_context() const {
    asio::ssl::context context(asio::ssl::context::tls_server);
    try {
      context.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                          asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                          asio::ssl::context::no_tlsv1_1);
      if (options_.tls_cert_key_file.empty()) {
        throw Error(ErrorCode::kBadValue, "TLS needs a certificate and key file");
      }
      context.use_certificate_chain_file(options_.tls_cert_key_file);
      context.use_private_key_file(options_.tls_cert_key_file, asio::ssl::context::pem);
      if (!options_.tls_ca_file.empty()) {
        context.load_verify_file(options_.tls_ca_file);
        context.set_verify_mode(asio::ssl::verify_peer);
      }
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(ErrorCode::kBadValue, std::string("TLS: cannot load the certificate, key or CA "
                                                    "file: ") +
                                            e.what());
    }
    return context;
  }

  // One read or write on the connection, through TLS once it is on.
  template <class Op>
  static asio::awaitable<std::tuple<asio::error_code, size_t>> on_stream(Connection& c, Op op) {
    if (c.tls) co_return co_await op(*c.tls);
    co_return co_await op(c.socket);
  }

  // Decides whether the connection speaks TLS and, if so, completes the handshake. Under
  // allowTLS / preferTLS the first byte tells: a TLS connection begins with a handshake
  // record (0x16), a MongoDB message with its little-endian length. Returns an error
  // message, or empty on success.
  asio::awaitable<std::string> start_tls(Connection& c) {
    if (!tls_context_) co_return std::string();
    bool use_tls = options_.tls_mode == TlsMode::kRequireTLS;
    if (!use_tls) {
      uint8_t first = 0;
      auto [ec, n] =
          co_await c.socket.async_receive(asio::buffer(&first, 1), tcp::socket::message_peek,
                                          asio::experimental::as_tuple(asio::use_awaitable));
      if (ec) co_return ec == asio::error::eof ? "closed by peer" : ec.message();
      use_tls = n == 1 && first == 0x16;
    }
    if (!use_tls) co_return std::string();
    c.tls = std::make_unique<asio::ssl::stream<tcp::socket&>>(c.socket, *tls_context_);
    // The handshake is a message that has begun: the message timeout bounds it.
    c.message_started = std::chrono::steady_clock::now();
    auto [ec] = co_await c.tls->async_handshake(asio::ssl::stream_base::server,
                                                asio::experimental::as_tuple(asio::use_awaitable));
    c.message_started.reset();
    if (ec) co_return "TLS handshake failed: " + ec.message();
    co_return std::string();
  }

  asio::awaitable<void> serve_connection(std::shared_ptr<Connection> c, int64_t id,
                                         std::string peer) {
    tcp::socket& socket = c->socket;
    ConnectionInfo info{id, peer};
    info.auth = std::make_shared<auth::AuthSession>();
    {
      asio::error_code ec;
      info.loopback = socket.remote_endpoint(ec).address().is_loopback() && !ec;
    }
    info.max_connections = options_.max_connections;
    std::string reason = "closed by peer";
    auto failed = [&](const std::string& what, const asio::error_code& ec) {
      reason = c->timed_out ? fmt::format("incomplete message after {} ms (message timeout)",
                                          options_.message_timeout.count())
                            : what + ": " + ec.message();
    };
    std::vector<uint8_t> message;
    try {
      if (std::string tls_failed = co_await start_tls(*c); !tls_failed.empty()) {
        throw std::runtime_error(tls_failed);
      }
      for (;;) {
        c->busy = false;
        // Stopping: a message already received is still served (as stop() leaves it to be),
        // even when this loop comes back here only after stop() has looked.
        asio::error_code unread_ec;
        if (draining_ && !(c->socket.available(unread_ec) > 0 && !unread_ec)) {
          reason = "server shutting down";
          break;
        }
        // An idle connection may wait for its next message as long as it likes; once the
        // first bytes arrive, the rest of the message must follow within message_timeout.
        message.resize(kHeaderSize);
        auto [ec, n] = co_await on_stream(*c, [&](auto& stream) {
          return stream.async_read_some(asio::buffer(message.data(), kHeaderSize),
                                        asio::experimental::as_tuple(asio::use_awaitable));
        });
        if (ec) {
          if (c->timed_out) {
            failed("", ec);
          } else if (draining_) {
            reason = "server shutting down";
          } else if (ec != asio::error::eof && ec != asio::ssl::error::stream_truncated) {
            reason = ec.message();
          }
          break;
        }
        c->busy = true;
        c->message_started = std::chrono::steady_clock::now();
        if (n < kHeaderSize) {
          auto [ec1, n1] = co_await on_stream(*c, [&](auto& stream) {
            return asio::async_read(stream, asio::buffer(message.data() + n, kHeaderSize - n),
                                    asio::experimental::as_tuple(asio::use_awaitable));
          });
          if (ec1) {
            failed("truncated header", ec1);
            break;
          }
        }
        MessageHeader header = parse_header(message.data());
        if (header.message_length < static_cast<int32_t>(kHeaderSize) ||
            header.message_length > kMaxMessageSize) {
          reason = fmt::format("invalid message length {} (limit {})", header.message_length,
                               kMaxMessageSize);
          break;
        }
        message.resize(static_cast<size_t>(header.message_length));
        auto [ec2, n2] = co_await on_stream(*c, [&](auto& stream) {
          return asio::async_read(
              stream, asio::buffer(message.data() + kHeaderSize, message.size() - kHeaderSize),
              asio::experimental::as_tuple(asio::use_awaitable));
        });
        if (ec2) {
          failed("truncated message", ec2);
          break;
        }
        c->message_started.reset();
        info.open_connections = open_connections_.load();
        info.total_connections = next_connection_id_.load();
        info.awaiting_topology_changes = awaiting_topology_changes_.load();
        std::vector<uint8_t> reply;
        ReplyPlan plan;
        try {
          // While a fail point is on, even hello may be blocked: it then runs on a worker.
          if (runs_on_network_thread(message) && !dispatcher_.fail_points_active()) {
            reply = handle(message, info, &plan);
          } else {
            // The connection's coroutine waits (its strand is free for others) while a worker
            // runs the command; it resumes on the strand to write the reply.
            reply = co_await asio::co_spawn(
                workers_,
                [&]() -> asio::awaitable<std::vector<uint8_t>> {
                  co_return handle(message, info, &plan);
                },
                asio::use_awaitable);
          }
        } catch (const Error& e) {
          reason = e.what();
          break;
        }
        if (reply.empty()) continue;  // moreToCome: no reply
        if (plan.hold.count() > 0 && !draining_) {
          // An awaitable hello: the reply waits until the topology changes (never, on one
          // node) or maxAwaitTimeMS passes, on a timer, so no thread waits with it.
          AwaitingTopologyChange counted(awaiting_topology_changes_);
          c->hello_wait.expires_after(plan.hold);
          co_await c->hello_wait.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
        }
        auto [ec3, n3] = co_await on_stream(*c, [&](auto& stream) {
          return asio::async_write(stream, asio::buffer(reply),
                                   asio::experimental::as_tuple(asio::use_awaitable));
        });
        if (ec3) {
          reason = "write failed: " + ec3.message();
          break;
        }
        // An exhaust hello (OP_MSG exhaustAllowed): the reply said moreToCome, so the next
        // ones follow without a request, each answering the one before, after maxAwaitTimeMS
        // (or a topology change) as mongod streams them to the drivers' monitors. The client
        // ends the stream by closing the connection; draining ends it with a last reply
        // without moreToCome (always sent, so the client's monitor learns of the end).
        bool stream_failed = false;
        while (plan.next_hello) {
          if (!draining_) {  // stopping: the last reply goes at once
            AwaitingTopologyChange counted(awaiting_topology_changes_);
            c->hello_wait.expires_after(plan.stream_hold);
            co_await c->hello_wait.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
          }
          bson::Document next;
          if (dispatcher_.fail_points_active()) {
            next = co_await asio::co_spawn(
                workers_,
                [&]() -> asio::awaitable<bson::Document> {
                  co_return dispatcher_.run(*plan.next_hello, info, "admin");
                },
                asio::use_awaitable);
          } else {
            next = dispatcher_.run(*plan.next_hello, info, "admin");
          }
          int32_t id = ++next_request_id_;
          bool more = !draining_ && next.get("ok").truthy();
          std::vector<uint8_t> streamed = encode_op_msg(id, plan.reply_id, next);
          if (more) {
            write_int32_at(streamed.data() + kHeaderSize, static_cast<int32_t>(kMoreToCome));
          }
          if (plan.compressor != Compressor::kNoop) {
            streamed = compress_message(streamed, plan.compressor);
          }
          plan.reply_id = id;
          if (!more) plan.next_hello.reset();
          auto [ec4, n4] = co_await on_stream(*c, [&](auto& stream) {
            return asio::async_write(stream, asio::buffer(streamed),
                                     asio::experimental::as_tuple(asio::use_awaitable));
          });
          if (ec4) {
            // The usual end of a stream: the client closed the connection meanwhile.
            reason = ec4 == asio::error::broken_pipe || ec4 == asio::error::connection_reset
                         ? "closed by peer (exhaust hello stream)"
                         : "write failed: " + ec4.message();
            stream_failed = true;
            break;
          }
        }
        if (stream_failed) break;
      }
    } catch (const std::exception& e) {
      reason = std::string("error: ") + e.what();
    }
    c->closed = true;
    c->watchdog.cancel();
    asio::error_code ignored;
    socket.close(ignored);
    --open_connections_;
    log("connection {} from {} closed: {}", id, peer, reason);
  }

  // The handshake's client.application.name (failCommand's appName matches it).
  static void remember_app_name(const bson::Document& command, ConnectionInfo& info) {
    auto first = command.begin();
    if (first == command.end()) return;
    if (first->key != "hello" && first->key != "isMaster" && first->key != "ismaster") return;
    bson::Value name = command.view().get_path("client.application.name");
    if (name.is_string() && name.as_string().size() <= 128) {
      info.app_name = std::string(name.as_string());
    }
  }

  // An awaitable hello (topologyVersion + maxAwaitTimeMS, the drivers' streaming monitor) whose
  // topologyVersion is the server's current one is answered after maxAwaitTimeMS; one naming
  // another process or counter is answered at once (the topology changed for that client).
  static std::chrono::milliseconds hello_hold(const bson::Document& command,
                                              const bson::Document& reply) {
    auto first = command.begin();
    if (first == command.end()) return {};
    std::string_view name = first->key;
    if (name != "hello" && name != "isMaster" && name != "ismaster") return {};
    bson::Value asked = command.get("topologyVersion");
    bson::Value ours = reply.get("topologyVersion");
    int64_t wait_ms = 0;
    if (!asked.is_document() || !ours.is_document() ||
        !command.get("maxAwaitTimeMS").number_as_exact_int64(&wait_ms) || wait_ms <= 0) {
      return {};
    }
    bson::DocumentView a = asked.as_document(), o = ours.as_document();
    int64_t asked_counter = -1, our_counter = -2;
    a.get("counter").number_as_exact_int64(&asked_counter);
    o.get("counter").number_as_exact_int64(&our_counter);
    if (a.get("processId").type() != bson::BsonType::kObjectId ||
        !(a.get("processId").as_object_id() == o.get("processId").as_object_id()) ||
        asked_counter != our_counter) {
      return {};
    }
    // Bounded: a client cannot park a reply for longer than a driver ever asks (10 s).
    return std::chrono::milliseconds(std::min<int64_t>(wait_ms, 60000));
  }

  // What the connection does with a reply besides writing it.
  struct ReplyPlan {
    /// An awaitable hello: how long the reply (and each streamed one) waits first.
    std::chrono::milliseconds hold{0};
    /// An exhaust hello: the hello that makes each next streamed reply (the request's, with
    /// the topologyVersion of the reply before), the id of the reply the next one answers,
    /// and the request's compressor (streamed replies are compressed alike).
    std::optional<bson::Document> next_hello;
    std::chrono::milliseconds stream_hold{0};
    int32_t reply_id = 0;
    Compressor compressor = Compressor::kNoop;
  };

  // True for a hello drivers' streaming monitors send: topologyVersion + maxAwaitTimeMS.
  static bool awaitable_hello(const bson::Document& command) {
    auto first = command.begin();
    if (first == command.end()) return false;
    std::string_view name = first->key;
    int64_t wait_ms = 0;
    return (name == "hello" || name == "isMaster" || name == "ismaster") &&
           command.get("topologyVersion").is_document() &&
           command.get("maxAwaitTimeMS").number_as_exact_int64(&wait_ms) && wait_ms > 0;
  }

  // `hello` with its topologyVersion replaced by the one `reply` carries.
  static bson::Document with_topology_version_of(const bson::Document& hello,
                                                 const bson::Document& reply) {
    bson::DocumentBuilder b;
    for (const bson::Element& e : hello) {
      if (e.key == "topologyVersion") {
        b.append(e.key, reply.get("topologyVersion"));
      } else {
        b.append(e.key, e.value);
      }
    }
    return b.finish();
  }

  std::vector<uint8_t> handle(const std::vector<uint8_t>& message, ConnectionInfo& info,
                              ReplyPlan* plan = nullptr) {
    if (parse_header(message.data()).op_code == kOpCompressed) {
      // Answered in kind: the reply is compressed with the request's compressor.
      Compressor used = Compressor::kNoop;
      std::vector<uint8_t> reply =
          handle(decompress_message(message, kMaxMessageSize, &used), info, plan);
      if (plan != nullptr) plan->compressor = used;
      return reply.empty() ? reply : compress_message(reply, used);
    }
    Request request;
    try {
      request = parse_request(message);
    } catch (const Error& e) {
      // A well-formed message whose documents nest deeper than maxBSONDepth is answered, as
      // mongod answers it, with Overflow; any other malformed message closes the connection.
      if (e.code() != static_cast<int32_t>(ErrorCode::kOverflow)) throw;
      MessageHeader head = parse_header(message.data());
      if (head.op_code == kOpMsg && (read_int32(message.data() + kHeaderSize) & kMoreToCome)) {
        return {};  // the client asked for no reply
      }
      bson::Document reply = bson::make_document("ok", 0.0, "errmsg", std::string(e.what()), "code",
                                                 e.code(), "codeName", e.code_name());
      int32_t id = ++next_request_id_;
      return head.op_code == kOpQuery ? encode_op_reply(id, head.request_id, reply)
                                      : encode_op_msg(id, head.request_id, reply);
    }
    int32_t reply_id = ++next_request_id_;
    remember_app_name(request.command, info);
    if (request.header.op_code == kOpQuery) {
      // Legacy OP_QUERY carries only the handshake now.
      auto first = request.command.begin();
      std::string name = first == request.command.end() ? "" : std::string(first->key);
      bool handshake = name == "hello" || name == "isMaster" || name == "ismaster";
      bool is_cmd = request.full_collection_name.size() >= 5 &&
                    request.full_collection_name.ends_with(".$cmd");
      bson::Document reply;
      if (handshake && is_cmd) {
        reply = dispatcher_.run(request.command, info, "admin");
      } else {
        reply = bson::make_document(
            "ok", 0.0, "errmsg",
            "Unsupported OP_QUERY command: " + name + ". The client driver may require an upgrade.",
            "code", 352, "codeName", "UnsupportedOpQueryCommand");
      }
      return encode_op_reply(reply_id, request.header.request_id, reply);
    }
    bson::Document reply = dispatcher_.run(request.command, info, "admin");
    if (request.flag_bits & kMoreToCome) return {};
    std::vector<uint8_t> encoded = encode_op_msg(reply_id, request.header.request_id, reply);
    if (plan == nullptr) return encoded;
    plan->hold = hello_hold(request.command, reply);
    if ((request.flag_bits & kExhaustAllowed) && awaitable_hello(request.command) &&
        reply.get("ok").truthy() && reply.get("topologyVersion").is_document()) {
      // Exhaust: this reply says moreToCome, and the next ones are this hello again with the
      // topologyVersion just sent (so each waits its maxAwaitTimeMS, as on mongod).
      write_int32_at(encoded.data() + kHeaderSize, static_cast<int32_t>(kMoreToCome));
      plan->next_hello = with_topology_version_of(request.command, reply);
      plan->stream_hold = hello_hold(*plan->next_hello, reply);
      plan->reply_id = reply_id;
    }
    return encoded;
  }

  ServerOptions options_;
  CommandDispatcher dispatcher_;
  /// The server's TLS configuration (start(), unless --tls-mode disabled).
  std::optional<asio::ssl::context> tls_context_;
  asio::thread_pool workers_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::vector<std::thread> threads_;
  uint16_t port_ = 0;
  std::atomic<size_t> open_connections_{0};
  std::atomic<int64_t> next_connection_id_{0};
  /// Connections holding an awaitable hello's reply (serverStatus's
  /// connections.awaitingTopologyChanges).
  std::atomic<int64_t> awaiting_topology_changes_{0};
  std::atomic<int32_t> next_request_id_{0};
  std::mutex stop_mutex_, log_mutex_;
  bool stopped_ = false;
  std::atomic<bool> draining_{false};
  /// Every connection accepted (expired ones are pruned on accept), for stop()'s drain.
  std::mutex connections_mutex_;
  std::vector<std::weak_ptr<Connection>> connections_;
};

Server::Server(std::shared_ptr<engine::Engine> engine, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(engine), std::move(options))) {}
Server::~Server() = default;
void Server::start() {
  impl_->start();
}
uint16_t Server::port() const {
  return impl_->port();
}
size_t Server::sessions() const {
  return impl_->sessions();
}
void Server::stop() {
  impl_->stop();
}

}  // namespace mongostore::server
