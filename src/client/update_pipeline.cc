// Collection::update_one / update_many / find_one_and_update given an update pipeline.
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"

namespace mongostore::client {
namespace {

// The stages as one BSON array (a document keyed "0", "1", ...: the same bytes).
bson::Document stages_array(const std::vector<bson::Document>& pipeline, std::string_view context) {
  if (pipeline.empty()) {
    throw Error(ErrorCode::kBadValue, std::string(context) + ": update pipeline must not be empty");
  }
  bson::DocumentBuilder array;
  for (size_t i = 0; i < pipeline.size(); ++i) array.append(std::to_string(i), pipeline[i].view());
  return array.finish();
}

}  // namespace

UpdateResult Collection::update_one(bson::DocumentView filter,
                                    const std::vector<bson::Document>& pipeline,
                                    UpdateOptions options) const {
  bson::Document stages = stages_array(pipeline, "updateOne");
  options.update_is_pipeline = true;
  return client_->update_one(db_, name_, filter, stages.view(), options);
}

UpdateResult Collection::update_many(bson::DocumentView filter,
                                     const std::vector<bson::Document>& pipeline,
                                     UpdateOptions options) const {
  bson::Document stages = stages_array(pipeline, "updateMany");
  options.update_is_pipeline = true;
  return client_->update_many(db_, name_, filter, stages.view(), options);
}

std::optional<bson::Document> Collection::find_one_and_update(
    bson::DocumentView filter, const std::vector<bson::Document>& pipeline,
    FindAndModifyOptions options) const {
  bson::Document stages = stages_array(pipeline, "findOneAndUpdate");
  options.update_is_pipeline = true;
  return client_->find_one_and_update(db_, name_, filter, stages.view(), options);
}

}  // namespace mongostore::client
