// `mongostore insert|find|ls`: look at and change a data directory by hand.
#include <fmt/core.h>

#include "commands.h"
#include "mongostore/bson/document.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"

namespace mongostore::tool {
namespace {

struct Namespace {
  std::string db, coll;
};

Namespace split_namespace(const std::string& ns) {
  size_t dot = ns.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == ns.size()) {
    throw Error(ErrorCode::kInvalidNamespace,
                "namespace '" + ns + "' must be <database>.<collection>");
  }
  return {ns.substr(0, dot), ns.substr(dot + 1)};
}

std::string uri_for(const std::string& data) {
  return "embedded:" + data;
}

}  // namespace

void register_document_commands(CLI::App& app, Action* action) {
  static std::string data = "mongostore-data", ns, filter = "{}";
  static std::vector<std::string> documents;
  static int64_t limit = 0;

  auto* insert = app.add_subcommand("insert", "Insert extended-JSON documents into a collection");
  insert->add_option("--data", data, "Data directory")->capture_default_str();
  insert->add_option("namespace", ns, "<database>.<collection>")->required();
  insert->add_option("documents", documents, "Documents as extended JSON")->required();
  insert->callback([action] {
    *action = [] {
      auto client = client::connect(uri_for(data));
      Namespace n = split_namespace(ns);
      auto coll = client->database(n.db).collection(n.coll);
      for (const std::string& json : documents) {
        bson::OwnedValue id = coll.insert_one(bson::Document::from_json(json));
        fmt::print("inserted {}\n", id.view().to_json());
      }
      return 0;
    };
  });

  auto* find = app.add_subcommand("find", "Print the documents of a collection matching a filter");
  find->add_option("--data", data, "Data directory")->capture_default_str();
  find->add_option("namespace", ns, "<database>.<collection>")->required();
  find->add_option("--filter", filter, "Filter as extended JSON")->capture_default_str();
  find->add_option("--limit", limit, "At most this many documents (0: all)");
  find->callback([action] {
    *action = [] {
      auto client = client::connect(uri_for(data));
      Namespace n = split_namespace(ns);
      client::FindOptions options;
      options.limit = limit;
      auto cursor = client->database(n.db).collection(n.coll).find(
          bson::Document::from_json(filter), options);
      for (const auto& doc : cursor->to_vector()) fmt::print("{}\n", doc.to_json());
      return 0;
    };
  });

  auto* ls = app.add_subcommand("ls", "List the databases and collections of a data directory");
  ls->add_option("--data", data, "Data directory")->capture_default_str();
  ls->callback([action] {
    *action = [] {
      auto client = client::connect(uri_for(data));
      for (const std::string& db : client->list_database_names()) {
        for (const std::string& coll : client->list_collection_names(db)) {
          int64_t n = client->database(db).collection(coll).count_documents(bson::Document());
          fmt::print("{}.{}\t{} documents\n", db, coll, n);
        }
      }
      return 0;
    };
  });
}

}  // namespace mongostore::tool
