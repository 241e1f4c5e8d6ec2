import assert from 'node:assert/strict';
import { fromTerraformLiteral, readUploadedConfig, terraformLiteral } from '../../src/config';

describe('the uploaded config text', () => {
  it('escapes ${ and %{ for Terraform and reads them back unchanged', () => {
    const text = 'Prices in ${currency} and %{percent}, $$ and %% alone, $${already}';
    assert.equal(terraformLiteral(text), 'Prices in $${currency} and %%{percent}, $$ and %% alone, $$${already}');
    assert.equal(fromTerraformLiteral(terraformLiteral(text)), text);
  });

  it('parses the uploaded content with the escapes undone', () => {
    const doc = { description: 'a ${b} %{c}', pattern: '^\\$\\{[a-z]+\\}$' };
    assert.deepEqual(readUploadedConfig(terraformLiteral(JSON.stringify(doc))), doc);
  });
});
