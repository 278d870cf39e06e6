import { problem } from './problems';

describe("API Pix's problems", () => {
  it('names the type under BACEN error catalogue, after its title', () => {
    expect(problem(404, 'CobNaoEncontrado', 'no charge with this txid')).toEqual({
      type: 'https://pix.bcb.gov.br/api/v2/error/CobNaoEncontrado',
      title: 'CobNaoEncontrado',
      status: 404,
      detail: 'no charge with this txid',
    });
  });
});
