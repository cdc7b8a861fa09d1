#include "client/command_monitoring.h"

#include <mongoc/mongoc.h>

namespace mongostore::client {
namespace {

bson::Document own(const bson_t* doc) {
  if (doc == nullptr) return bson::Document();
  return bson::Document::from_bytes({bson_get_data(doc), doc->len});
}

const CommandObserver& observer_of(void* context) {
  return *static_cast<const CommandObserver*>(context);
}

void on_started(const mongoc_apm_command_started_t* event) {
  CommandEvent e;
  e.kind = CommandEvent::Kind::kStarted;
  e.command_name = mongoc_apm_command_started_get_command_name(event);
  e.database_name = mongoc_apm_command_started_get_database_name(event);
  e.document = own(mongoc_apm_command_started_get_command(event));
  observer_of(mongoc_apm_command_started_get_context(event))(e);
}

void on_succeeded(const mongoc_apm_command_succeeded_t* event) {
  CommandEvent e;
  e.kind = CommandEvent::Kind::kSucceeded;
  e.command_name = mongoc_apm_command_succeeded_get_command_name(event);
  e.document = own(mongoc_apm_command_succeeded_get_reply(event));
  observer_of(mongoc_apm_command_succeeded_get_context(event))(e);
}

void on_failed(const mongoc_apm_command_failed_t* event) {
  CommandEvent e;
  e.kind = CommandEvent::Kind::kFailed;
  e.command_name = mongoc_apm_command_failed_get_command_name(event);
  e.document = own(mongoc_apm_command_failed_get_reply(event));
  bson_error_t error;
  mongoc_apm_command_failed_get_error(event, &error);
  e.error_code = static_cast<int32_t>(error.code);
  observer_of(mongoc_apm_command_failed_get_context(event))(e);
}

}  // namespace

void install_command_observer(mongoc_client_pool_t* pool, const CommandObserver* observer) {
  mongoc_apm_callbacks_t* callbacks = mongoc_apm_callbacks_new();
  mongoc_apm_set_command_started_cb(callbacks, on_started);
  mongoc_apm_set_command_succeeded_cb(callbacks, on_succeeded);
  mongoc_apm_set_command_failed_cb(callbacks, on_failed);
  mongoc_client_pool_set_apm_callbacks(pool, callbacks, const_cast<CommandObserver*>(observer));
  mongoc_apm_callbacks_destroy(callbacks);
}

}  // namespace mongostore::client
