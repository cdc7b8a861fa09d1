// OptimadeHttpServer: an OptimadeService behind HTTP/1.1, with cpp-httplib (Debian's
// libcpp-httplib-dev; plain HTTP, no TLS).
//
// Every GET (and HEAD) goes to the service; other methods get its 405 document. Bounded input:
// the URI is at most 8,192 bytes (the library's limit: 414 beyond), a body at most 4 KiB (413),
// a request is read within 5 s; a few worker threads (the service serves one request at a
// time anyway). Links in responses are built on the request's Host header when it is a plain
// host[:port], else on the bound address. Responses carry `Access-Control-Allow-Origin: *`, as
// the specification suggests.
//
// Thread safety: run() blocks in one thread; stop() may be called from any other.
#pragma once

#include <memory>
#include <string>

#include "optimade/optimade_service.h"

namespace mongostore::tool::optimade {

class OptimadeHttpServer {
 public:
  /// Binds `bind`:`port` (0: a free port). Error(HostUnreachable) when it cannot.
  OptimadeHttpServer(OptimadeService& service, const std::string& bind, int port);
  ~OptimadeHttpServer();

  /// The bound port.
  int port() const;
  /// Serves until stop().
  void run();
  void stop();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace mongostore::tool::optimade
