// DocumentValidationError: DocumentValidationFailure (121) "Document failed validation", with
// the errInfo mongod's reply carries ({failingDocumentId, details: {operatorName, ...}}).
// Its own header so every layer that raises or decodes it (the engine's validators, the
// server's reply, the remote client) shares one type.
#pragma once

#include <string>
#include <utility>

#include "mongostore/bson/document.h"
#include "mongostore/error.h"

namespace mongostore {

class DocumentValidationError : public Error {
 public:
  explicit DocumentValidationError(bson::Document err_info,
                                   std::string message = "Document failed validation")
      : Error(ErrorCode::kDocumentValidationFailure, std::move(message)),
        err_info_(std::move(err_info)) {}
  /// {failingDocumentId: <_id>, details: {operatorName: ..., ...}}; see docs/compatibility.md
  /// for how much of mongod's details mongostore gives.
  const bson::Document& err_info() const { return err_info_; }

 private:
  bson::Document err_info_;
};

}  // namespace mongostore
