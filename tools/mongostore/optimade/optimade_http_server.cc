#include "optimade/optimade_http_server.h"

#include <httplib.h>

#include "mongostore/error.h"

namespace mongostore::tool::optimade {
namespace {

// A Host header we may echo into links: host or [v6] with an optional port, nothing else.
bool plain_host(const std::string& host) {
  if (host.empty() || host.size() > 255) return false;
  for (char c : host) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
    if (!ok) return false;
  }
  return true;
}

constexpr size_t kMaxBody = 4096;
constexpr size_t kThreads = 4;

}  // namespace

class OptimadeHttpServer::Impl {
 public:
  Impl(OptimadeService& service, const std::string& bind, int port) : service_(service) {
    server_.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
    server_.set_payload_max_length(kMaxBody);
    server_.set_read_timeout(5, 0);
    server_.set_write_timeout(5, 0);
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      OptimadeRequest request;
      request.method = req.method;
      request.path = req.path;
      for (const auto& [name, value] : req.params) request.params.emplace_back(name, value);
      std::string host = req.get_header_value("Host");
      request.base_url = "http://" + (plain_host(host) ? host : fallback_host_);
      reply(res, service_.handle(request));
    };
    server_.Get(".*", handler);
    server_.Post(".*", handler);
    server_.Put(".*", handler);
    server_.Patch(".*", handler);
    server_.Delete(".*", handler);
    server_.Options(".*", handler);
    // What the library refuses itself (an oversized URI or body, a malformed request line)
    // still gets an error document.
    server_.set_error_handler([this](const httplib::Request&, httplib::Response& res) {
      if (res.body.empty()) {
        reply(res, service_.error(res.status, "the HTTP request was refused (status " +
                                                  std::to_string(res.status) + ")"));
      }
    });
    if (port == 0) {
      port_ = server_.bind_to_any_port(bind);
    } else {
      port_ = server_.bind_to_port(bind, port) ? port : -1;
    }
    if (port_ <= 0) {
      throw Error(ErrorCode::kHostUnreachable,
                  "cannot listen on " + bind + ":" + std::to_string(port));
    }
    fallback_host_ = (bind.find(':') != std::string::npos ? "[" + bind + "]" : bind) + ":" +
                     std::to_string(port_);
  }

  static void reply(httplib::Response& res, const OptimadeResponse& response) {
    res.status = response.status;
    res.set_header("Access-Control-Allow-Origin", "*");
    res.set_content(response.body, response.content_type.c_str());
  }

  OptimadeService& service_;
  httplib::Server server_;
  int port_ = -1;
  std::string fallback_host_;
};

OptimadeHttpServer::OptimadeHttpServer(OptimadeService& service, const std::string& bind, int port)
    : impl_(std::make_unique<Impl>(service, bind, port)) {}

OptimadeHttpServer::~OptimadeHttpServer() = default;

int OptimadeHttpServer::port() const {
  return impl_->port_;
}

void OptimadeHttpServer::run() {
  impl_->server_.listen_after_bind();
}

void OptimadeHttpServer::stop() {
  impl_->server_.stop();
}

}  // namespace mongostore::tool::optimade
